-- Chinese cross-references and citations, as bookbuild sets them (bookbuild/render/filters/citations.py
-- ref_text and cjk_spacing.py):
--   * the word order of `crossref-form` (_quarto-zh.yml: 节: "第 {} 节"): Quarto's crossref writes
--     "节 A.6"; a reference whose word has a form reads "第 A.6 节" (the spaces non-breaking);
--   * no space beside a reference or a citation between two Chinese characters (Han or full-width
--     punctuation), nor beside full-width punctuation ("Firecracker（Agache 等，2020）"): pandoc needs one
--     before `@ref` in the source. "汇总于 @sec-x，" -> "汇总于第 A.6 节，",
--     "模型 [@w] 以" -> "模型（Williams 等，2009）以"; "从 @tbl-x 中" keeps the space between "A.1" and "中".
-- Runs at post-render (after Quarto's crossref, before citeproc, which Quarto runs last): a citation's edges
-- are read from its mode, as the Chinese style sets it (csl/gb-t-7714-2015-author-date.csl: "（…）", or the
-- author's Latin name first in text).
local NBSP = "\u{A0}"

local function is_cjk(cp)
  return cp and ((cp >= 0x3000 and cp <= 0x303F) or (cp >= 0x3400 and cp <= 0x4DBF)
    or (cp >= 0x4E00 and cp <= 0x9FFF) or (cp >= 0xFF00 and cp <= 0xFFEF))
end

local function first_cp(s)
  if s == nil or s == "" then return nil end
  return utf8.codepoint(s, 1)
end

local function last_cp(s)
  if s == nil or s == "" then return nil end
  return utf8.codepoint(s, utf8.offset(s, -1))
end

local function has_class(el, cls)
  for _, c in ipairs(el.classes or {}) do if c == cls then return true end end
  return false
end

local function is_xref(el)   -- a reference (a Span in typst: the form around typst's #ref)
  return el and (el.t == "Link" or el.t == "Span") and has_class(el, "quarto-xref")
end

local function is_typst_ref_open(el)
  return el and el.t == "RawInline" and el.format == "typst" and el.text:match("^#ref%(<") ~= nil
end

local function is_typst_ref_close(el)
  return el and el.t == "RawInline" and el.format == "typst" and el.text == "])"
end

local function is_fullwidth_punct(cp)
  return cp and ((cp >= 0x3000 and cp <= 0x303F) or (cp >= 0xFF00 and cp <= 0xFF0F) or (cp >= 0xFF1A and cp <= 0xFF20)
    or (cp >= 0xFF3B and cp <= 0xFF40) or (cp >= 0xFF5B and cp <= 0xFF65))
end

-- the character an element shows at its left or right edge, where it is known
local function left_edge(list, i)
  local el = list[i]
  if el == nil then return nil end
  if el.t == "Cite" then
    local mode = el.citations[1] and el.citations[1].mode or "NormalCitation"
    if mode == "AuthorInText" then return utf8.codepoint("A") end
    return utf8.codepoint("（")
  end
  if is_typst_ref_open(el) then return left_edge(list, i + 1) end   -- its supplement comes first
  if el.t == "RawInline" or el.t == "Note" then return nil end
  return first_cp(pandoc.utils.stringify(el))
end

local function right_edge(list, i)
  local el = list[i]
  if el == nil then return nil end
  if el.t == "Cite" then return utf8.codepoint("）") end
  if is_typst_ref_close(el) then return utf8.codepoint("0") end     -- typst prints the number last
  if el.t == "RawInline" or el.t == "Note" then return nil end
  return last_cp(pandoc.utils.stringify(el))
end

-- no space between two Chinese characters, nor beside full-width punctuation (it carries its own space)
local function joins(a, b)
  return (is_cjk(a) and is_cjk(b)) or is_fullwidth_punct(a) or is_fullwidth_punct(b)
end

local function is_ref(el)
  return el and (el.t == "Cite" or is_xref(el) or is_typst_ref_open(el) or is_typst_ref_close(el))
end

-- "节 A.6" -> "第 A.6 节" where crossref-form names the word
local function apply_form(forms, el)
  local content = el.content
  local n = #content
  if n < 3 or content[n].t ~= "Str" or content[n - 1].t ~= "Str" or content[n - 1].text ~= NBSP then
    return nil   -- no word (-@ref), or not the crossref's "word, nbsp, number"
  end
  local word = pandoc.utils.stringify(pandoc.Inlines({table.unpack(content, 1, n - 2)}))
  local form = forms[word]
  if form == nil then return nil end
  local a, b = form:match("^(.-){}(.*)$")
  el.content = pandoc.Inlines({pandoc.Str((a:gsub(" ", NBSP)) .. content[n].text .. (b:gsub(" ", NBSP)))})
  return el
end

-- typst: #ref(<sec-x>, supplement: [节]) -> 第 #ref(<sec-x>, supplement: none) 节
local function typst_forms(forms, inlines)
  local out = pandoc.Inlines({})
  local i = 1
  while i <= #inlines do
    local el = inlines[i]
    local closed = is_typst_ref_open(el) and el.text:match("supplement: %[$")
    if closed then
      local j = i + 1
      while j <= #inlines and not is_typst_ref_close(inlines[j]) do j = j + 1 end
      local word = pandoc.utils.stringify(pandoc.Inlines({table.unpack(inlines, i + 1, j - 1)}))
      local form = j <= #inlines and forms[word]
      if form then
        local a, b = form:match("^(.-){}(.*)$")
        local label = el.text:match("^#ref%((<[^>]+>)")
        out:insert(pandoc.Span({pandoc.Str((a:gsub(" ", NBSP))),
                                pandoc.RawInline("typst", "#ref(" .. label .. ", supplement: none)"),
                                pandoc.Str((b:gsub(" ", NBSP)))}, pandoc.Attr("", {"quarto-xref"})))
        i = j + 1
        goto continue
      end
    end
    out:insert(el)
    i = i + 1
    ::continue::
  end
  return out
end

local function drop_spaces(inlines)
  local out = pandoc.Inlines({})
  for i, el in ipairs(inlines) do
    local prev = out[#out]
    local keep = true
    if el.t == "Space" and prev and inlines[i + 1] and (is_ref(prev) or is_ref(inlines[i + 1])) then
      keep = not joins(right_edge(out, #out), left_edge(inlines, i + 1))
    end
    if keep then out:insert(el) end
  end
  return out
end

function Pandoc(doc)
  local lang = doc.meta.lang and pandoc.utils.stringify(doc.meta.lang) or ""
  if lang:sub(1, 2) ~= "zh" then return nil end
  local forms = {}
  if doc.meta["crossref-form"] then
    for word, form in pairs(doc.meta["crossref-form"]) do forms[word] = pandoc.utils.stringify(form) end
  end
  return doc:walk({
    Link = function(el) if is_xref(el) then return apply_form(forms, el) end end,
  }):walk({
    Inlines = function(inlines) return drop_spaces(typst_forms(forms, inlines)) end,
  })
end
