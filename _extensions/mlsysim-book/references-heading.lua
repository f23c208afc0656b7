-- A chapter that cites ends with its bibliography under a heading, "References" ("参考文献" in a Chinese
-- book), as the book's own pages do (bookbuild/render/filters/references.py, render/ui "references"):
-- Quarto's HTML book writes each chapter's bibliography with no heading. Run before Quarto's filters (the
-- extension's list), so citeproc fills the #refs placed here; a chapter that places its own #refs is left
-- as it is. HTML only: Quarto's typst and EPUB books are one document with one bibliography.
local CROSSREF = { fig = true, tbl = true, eq = true, sec = true, lst = true, thm = true, lem = true,
                   cor = true, prp = true, cnj = true, def = true, exm = true, exr = true, apx = true }
local TITLE = { en = "References", zh = "参考文献" }

function Pandoc(doc)
  if not quarto.doc.is_format("html") then return nil end
  local cites, has_refs = false, false
  doc:walk({
    Cite = function(c)
      for _, citation in ipairs(c.citations) do
        if not CROSSREF[citation.id:match("^(%a+)%-") or ""] then cites = true end
      end
    end,
    Div = function(d) if d.identifier == "refs" then has_refs = true end end,
  })
  if not cites or has_refs then return nil end
  local lang = doc.meta.lang and pandoc.utils.stringify(doc.meta.lang):sub(1, 2) or "en"
  doc.blocks:insert(pandoc.Header(2, TITLE[lang] or TITLE.en, pandoc.Attr("references", { "unnumbered" })))
  doc.blocks:insert(pandoc.Div({}, pandoc.Attr("refs")))
  return doc
end
