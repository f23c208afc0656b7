-- Chinese captions read "图 A.1：标题", with no space after the full-width colon (Chinese type has none;
-- the colon carries its own space). Quarto's crossref writes its title-delim and then a Space
-- (floatreftarget.lua); this filter, run last (_quarto.yml: at: post-render, just before the writer), drops a Space
-- that follows a full-width colon in a Chinese book. bookbuild's captions do the same
-- (bookbuild/render/filters/tables.py caption_prefix).
local FULLWIDTH_COLON = "\u{FF1A}"

local function drop_spaces(inlines)
  local out, prev = pandoc.Inlines({}), nil
  for _, el in ipairs(inlines) do
    if not (el.t == "Space" and prev and prev.t == "Str" and prev.text:sub(-#FULLWIDTH_COLON) == FULLWIDTH_COLON) then
      out:insert(el)
    end
    prev = el
  end
  return out
end

function Pandoc(doc)
  local lang = doc.meta.lang and pandoc.utils.stringify(doc.meta.lang) or ""
  if lang:sub(1, 2) ~= "zh" then return nil end
  return doc:walk({ Inlines = drop_spaces })
end
