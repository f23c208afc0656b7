-- A figure the book draws with plotly in HTML (a div.mlsysim-plot holding its JSON, drawn by the
-- book's own figures.js) is, in every format that runs no script (EPUB), the static SVG the same
-- cell wrote beside the chapter: <chapter folder>/figures/<figure>.<lang>.svg
-- (mlsysim.figures.book_figure). Quarto's EPUB of a book is one document whose images are found from the
-- project's folder: the chapter each block comes from is the one the last book marker named
-- (<!-- quarto-file-metadata: ... -->), and its folder goes before the figure's path.
-- (bookbuild does the same in bookbuild/render/filters/scriptless.py.)

local function marked_file(el)
  if el.t ~= "RawBlock" or el.format ~= "html" then return nil end
  local encoded = el.text:match("^<!%-%- quarto%-file%-metadata: ([^ ]+) %-%->$")
  if not encoded then return nil end
  local file = quarto.json.decode(quarto.base64.decode(encoded))
  return file and file.bookItemFile or nil
end

local function static_figure(folder)
  return {
    RawBlock = function(el)
      if el.format ~= "html" then return nil end
      local key = el.text:match('class="mlsysim%-plot"[^>]-data%-figure="([^"]+)"')
      local lang = el.text:match('class="mlsysim%-plot"[^>]-lang="([^"]+)"')
      if not key or not lang then return nil end
      local path = "figures/" .. key .. "." .. lang .. ".svg"
      if folder and folder ~= "" and folder ~= "." then path = folder .. "/" .. path end
      return pandoc.Para({ pandoc.Image({}, path) })
    end
  }
end

function Pandoc(doc)
  if not quarto.doc.is_format("epub") then return nil end
  local folder = nil
  local blocks = pandoc.Blocks({})
  for _, b in ipairs(doc.blocks) do
    local file = marked_file(b)
    if file then folder = pandoc.path.directory(file) end
    blocks:insert(file and b or pandoc.walk_block(b, static_figure(folder)))
  end
  doc.blocks = blocks
  return doc
end
