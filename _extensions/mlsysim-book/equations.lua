-- Display equations as the book's own build sets them (bookbuild/render/filters/equations.py), run after
-- Quarto's crossref filter (_quarto.yml: at: post-quarto):
-- * HTML and EPUB: Quarto writes a labelled equation's number inside its math ("… \qquad(A.4)", an italic
--   (𝐴.4) in MathML); here it becomes the book's span.quarto-eq holding span.eq-body (the math, without the
--   number) and span.eq-number "(A.4)", which quarto-bridge.css centres with the number at the right.
-- * typst: Quarto's book template numbers every display equation, so the unlabelled ones took numbers and
--   the labelled ones shifted; an unlabelled equation is set with no number (and does not count).
local function qquad_number(text)
  local math, num = text:match("^(.-)%s*\\qquad%s*%(([^()]*)%)%s*$")
  return math, num
end

local function html_span(span)
  if not span.identifier:match("^eq%-") or #span.content ~= 1 then return nil end
  local m = span.content[1]
  if m.t ~= "Math" or m.mathtype ~= "DisplayMath" then return nil end
  local math, num = qquad_number(m.text)
  if not math then return nil end
  return pandoc.Span({
    pandoc.Span({ pandoc.Math("DisplayMath", math) }, pandoc.Attr("", { "eq-body" })),
    pandoc.Span({ pandoc.Str("(" .. num .. ")") }, pandoc.Attr("", { "eq-number" })),
  }, pandoc.Attr(span.identifier, { "quarto-eq" }, span.attributes))
end

-- typst: a display equation Quarto did not label (no #math.equation around it) is set unnumbered
local function typst_inlines(inlines)
  local out, changed = pandoc.Inlines({}), false
  for i, el in ipairs(inlines) do
    local prev = inlines[i - 1]
    local wrapped = prev and prev.t == "RawInline" and prev.format == "typst" and prev.text:match("#math%.equation%(")
    if el.t == "Math" and el.mathtype == "DisplayMath" and not wrapped then
      out:insert(pandoc.RawInline("typst", "#math.equation(block: true, numbering: none, [ "))
      out:insert(el)
      out:insert(pandoc.RawInline("typst", " ])"))
      changed = true
    else
      out:insert(el)
    end
  end
  return changed and out or nil
end

function Pandoc(doc)
  if quarto.doc.is_format("typst") then
    return doc:walk({ Inlines = typst_inlines })
  end
  if quarto.doc.is_format("html") or quarto.doc.is_format("epub") then
    return doc:walk({ Span = html_span })
  end
  return nil
end
