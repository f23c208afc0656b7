-- A figure the book draws with plotly in HTML (a div.mlsysim-plot holding its JSON, drawn by the
-- book's own figures.js) is, in every format that runs no script (EPUB), the static SVG the same
-- cell wrote beside the chapter: figures/<figure>.<lang>.svg (mlsysim.figures.book_figure).
local function is_scriptless()
  return quarto.doc.is_format("epub")
end

function RawBlock(el)
  if not is_scriptless() or el.format ~= "html" then return nil end
  local key = el.text:match('class="mlsysim%-plot"[^>]-data%-figure="([^"]+)"')
  local lang = el.text:match('class="mlsysim%-plot"[^>]-lang="([^"]+)"')
  if not key or not lang then return nil end
  return pandoc.Para({ pandoc.Image({}, "figures/" .. key .. "." .. lang .. ".svg") })
end
