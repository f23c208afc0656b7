-- A chapter's declared number. A chapter may say how many chapters precede it with Quarto's own
-- option in its front matter, `number-offset: [18]` (the lecture is the course's Lecture 19): bookbuild
-- numbers it 19 (bookbuild/numbering.py). A Quarto book instead numbers its chapters by position and
-- sets number-offset per chapter itself, over the front matter (book-chapters.ts); this filter puts the
-- declared number back where Quarto's crossref filter and title read it:
--   HTML (a page per chapter): the section counter the crossref filter numbers sections, figures,
--     tables and equations from (19.1, ...), the chapter's own entry in the cross-reference index, and
--     the number in the chapter's title; the sidebar and page navigation are Quarto's own HTML, which
--     the post-render step corrects (bookbuild/quarto/post_render.py).
--   typst (one document for the whole book; typst numbers the headings, figures and equations): the
--     heading counter is set to the offset just before the chapter's heading.
--   EPUB (one document, numbered by the crossref filter): its counter, as it reaches the chapter's h1.
-- It runs before Quarto's own filters (an extension's filters do by default), so before the crossref
-- filter numbers anything.

local function offset_of(value, where)
  if value == nil then return nil end
  if pandoc.utils.type(value) == "List" then
    if #value ~= 1 then value = nil else value = value[1] end
  end
  local n = value ~= nil and tonumber(pandoc.utils.stringify(value)) or nil
  if n == nil or n < 0 or n ~= math.floor(n) then
    error("mlsysim-book: " .. where .. ": number-offset must be one whole number of chapters before this one, "
          .. "such as [18] (the chapter is then 19)")
  end
  return math.floor(n)
end

local function renumber_title(meta, number)
  if meta.title == nil then return end
  meta.title = pandoc.utils.type(meta.title) == "Inlines" and pandoc.Inlines(meta.title) or meta.title
  meta.title = pandoc.walk_inline(pandoc.Span(meta.title), {
    Span = function(s)
      if s.classes:includes("chapter-number") then
        s.content = pandoc.Inlines({ pandoc.Str(tostring(number)) })
        return s
      end
    end
  }).content
end

-- the number-offset the chapter's own front matter declares: Quarto takes number-offset as a pandoc
-- option, so it is not in the document's metadata; the source file is read instead
local function declared_offset(path)
  local f = path and io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local fm = text:match("^%-%-%-\r?\n(.-\r?\n)%-%-%-")
  if not fm or not fm:find("number%-offset") then return nil end
  return offset_of(pandoc.read("---\n" .. fm .. "---\n", "markdown").meta["number-offset"], path)
end

local function html_chapter(doc)
  local offset = declared_offset(quarto.doc.input_file)
  if offset == nil then return nil end
  local number = offset + 1
  local index = _G.crossref and _G.crossref.index
  if index == nil or index.section == nil then
    error("mlsysim-book: this Quarto keeps no crossref index where chapter-number.lua expects it; "
          .. "the chapter's number-offset cannot be applied")
  end
  -- Quarto's book put the chapter's position here (its number-offset); the h1 is the page title
  index.section[1] = number
  index.sectionOffsets[1] = number
  index.numberOffset[1] = number
  renumber_title(doc.meta, number)
  return doc
end

-- the chapter file a Quarto book marker names (single-file books: typst), or nil
local function marked_file(el)
  if el.t ~= "RawBlock" or el.format ~= "html" then return nil end
  local encoded = el.text:match("^<!%-%- quarto%-file%-metadata: ([^ ]+) %-%->$")
  if not encoded then return nil end
  local file = quarto.json.decode(quarto.base64.decode(encoded))
  return file and file.bookItemType == "chapter" and file.bookItemFile or nil
end

local function typst_book(doc)
  local blocks, file, seen = pandoc.Blocks({}), nil, false
  for _, b in ipairs(doc.blocks) do
    local marked = marked_file(b)
    if marked then
      file, seen = marked, false
    elseif b.t == "Header" and b.level == 1 and file and not seen then
      seen = true
      local dir = quarto.project and quarto.project.directory
      local offset = declared_offset(dir and pandoc.path.join({ dir, file }) or file)
      if offset ~= nil then
        -- typst steps the counter at the heading: the chapter is offset + 1, its sections (offset + 1).1, ...
        -- The update goes after the page break the book's chapter heading makes (orange-book: to an odd
        -- page), so a blank page before the chapter keeps the previous chapter's running head; typst
        -- merges the two breaks, so no page is added.
        blocks:insert(pandoc.RawBlock("typst", '#pagebreak(to: "odd", weak: true)\n#counter(heading).update('
                                               .. offset .. ")"))
      end
    end
    blocks:insert(b)
  end
  doc.blocks = blocks
  return doc
end

-- EPUB (one document for the whole book, numbered by Quarto's crossref filter as it meets each h1): the
-- filter's chapter hook (indexNextChapter, called as each h1 is counted) sets the counter to the declared
-- number when the h1 is the first of a chapter that declares one
local function epub_book(doc)
  local offsets, any = {}, false
  local dir = quarto.project and quarto.project.directory
  for _, b in ipairs(doc.blocks) do
    local file = marked_file(b)
    if file and offsets[file] == nil then
      offsets[file] = declared_offset(dir and pandoc.path.join({ dir, file }) or file) or false
      any = any or offsets[file] ~= false
    end
  end
  if not any then return nil end
  local next_chapter, file_state = _G.indexNextChapter, _G.currentFileMetadataState
  if type(next_chapter) ~= "function" or type(file_state) ~= "function" or not (_G.crossref and _G.crossref.index) then
    error("mlsysim-book: this Quarto's crossref filter has no chapter hook where chapter-number.lua expects it; "
          .. "the chapter's number-offset cannot be applied to the EPUB")
  end
  local applied = {}
  _G.indexNextChapter = function(number, appendix)
    local state = file_state()
    local file = state and state.file and state.file.bookItemFile
    if file and offsets[file] and not applied[file] then
      applied[file] = true
      number = offsets[file] + 1
      _G.crossref.index.section[1] = number
    end
    return next_chapter(number, appendix)
  end
  return nil
end

function Pandoc(doc)
  if quarto.doc.is_format("epub") then
    return epub_book(doc)
  elseif quarto.doc.is_format("html") then
    return html_chapter(doc)
  elseif quarto.doc.is_format("typst") then
    return typst_book(doc)
  end
  return nil
end
