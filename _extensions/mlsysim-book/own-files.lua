-- Every file a chapter names for a page to show or a writer to embed is a file of the project, never the
-- network's, in Quarto's book as in bookbuild's (bookbuild/media.py holds the rule; check and our renderer
-- apply it, Quarto's pre-render step to the prose): here, after Quarto ran the cells, over what they printed
-- too. An image, and what raw HTML names (src, poster, an <object>'s data, a <link>'s href; srcset refused):
-- pandoc's EPUB writer embeds raw HTML's files, so a file outside the project would travel in the EPUB. A
-- refused file stops the render with one line naming the chapter and the file.
local root = quarto.project.directory
local input = quarto.doc.input_file

local function realpath(path)
  -- links followed (a link inside the project may name a file outside it); where realpath cannot run, the
  -- path as written, normalized
  local ok, out = pcall(pandoc.pipe, "realpath", { "-m", path }, "")
  if ok and out and out ~= "" then return (out:gsub("%s+$", "")) end
  return pandoc.path.normalize(path)
end

local project = root and realpath(root) or nil

local function refuse(what, name, why)
  local where = input and pandoc.path.make_relative(input, root or ".") or "a chapter"
  io.stderr:write(where .. ": " .. what .. " " .. name .. " " .. why .. "\n")
  os.exit(1)
end

local function check(what, name)
  if name == nil or name == "" or name:sub(1, 1) == "#" or name:sub(1, 5) == "data:" then return end
  if name:match("^%a[%w+.-]*:") then
    refuse(what, name, "is not a local file (the book must load nothing from the network)")
  end
  if not project then return end
  local file = name:gsub("[?#].*$", "")
  local base = input and pandoc.path.directory(input) or project
  local full = pandoc.path.is_absolute(file) and file or pandoc.path.join({ base, file })
  local real = realpath(full)
  if real ~= project and real:sub(1, #project + 1) ~= project .. "/" then
    refuse(what, name, "is outside the project (" .. real .. "): a chapter may show only files of the book's own folder")
  end
end

local VALUES = { "%s(%a+)%s*=%s*\"([^\"]*)\"", "%s(%a+)%s*=%s*'([^']*)'", "%s(%a+)%s*=%s*([^%s\"'>]+)" }

local function raw_html(text)
  for tag in text:gmatch("<(%a[%w-]*[^>]*)>") do
    local name = tag:match("^(%a[%w-]*)"):lower()
    local attrs = tag:sub(#name + 1)
    for _, pattern in ipairs(VALUES) do
      for attr, value in attrs:gmatch(pattern) do
        local a = attr:lower()
        if a == "srcset" then
          refuse("raw HTML <" .. name .. " srcset>", value, "names a list: a chapter's raw HTML names a file with src (one file)")
        elseif a == "src" or a == "poster" or a == "data" or (a == "href" and name == "link") then
          check("raw HTML <" .. name .. "> file", value)
        end
      end
    end
  end
end

local function raw(el)
  local fmt = el.format:lower()
  if fmt == "html" or fmt == "html5" or fmt == "html4" then raw_html(el.text) end
end

function Image(el) check("image", el.src) end
RawBlock = raw
RawInline = raw
