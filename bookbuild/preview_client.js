(function(){
  var me = document.currentScript, seen = parseInt(me.getAttribute('data-version'), 10);
  function banner(lines, warn){
    var b = document.getElementById('bookbuild-errors');
    if (!lines || !lines.length){ if (b) b.remove(); return; }
    if (!b){ b = document.createElement('div'); b.id = 'bookbuild-errors'; b.setAttribute('role','alert');
      document.body.appendChild(b); }
    b.className = warn ? 'bookbuild-warning' : 'bookbuild-failure';
    b.style.cssText = 'position:fixed;left:0;right:0;top:0;z-index:9999;color:#fff;background:' + (warn ? '#7a4b00' : '#7f1d1d')
      + ';font:13px/1.45 ui-monospace,monospace;padding:10px 14px;white-space:pre-wrap;max-height:45vh;overflow:auto';
    b.textContent = (warn ? 'Built, with warnings:\n' : 'The last build failed (the page shows the previous good build):\n')
      + lines.join('\n');
  }
  var patched = parseInt(me.getAttribute('data-patch'), 10);
  function norm(s){ return s.replace(/\s+/g, ' ').trim(); }
  function parsed(html){ var t = document.createElement('template'); t.innerHTML = html; return t.content; }
  function swap(p){
    var here; try { here = decodeURIComponent(location.pathname); } catch (e) { here = location.pathname; }
    here = here.replace(/^\//, '').replace(/(^|\/)$/, '$1index.html');
    if (here !== p.page) return true;   // another page: nothing to show here
    var art = document.querySelector('article.chapter'), olds = Array.prototype.slice.call(parsed(p.old).children);
    if (!art || !olds.length) return false;
    var want = norm(olds[0].textContent), hits = Array.prototype.filter.call(
      art.getElementsByTagName(olds[0].tagName), function(el){ return norm(el.textContent) === want; });
    if (hits.length !== 1) return false;
    var run = [hits[0]], el = hits[0];
    for (var i = 1; i < olds.length; i++){
      el = el.nextElementSibling;
      if (!el || el.tagName !== olds[i].tagName || norm(el.textContent) !== norm(olds[i].textContent)) return false;
      run.push(el);
    }
    run[0].parentNode.insertBefore(parsed(p.new), run[0]);
    run.forEach(function(x){ x.remove(); });
    return true;
  }
  function apply(s){
    if (s.version !== seen){ location.reload(); return; }   // a build passed (only that one counts up)
    if (s.patch && s.patch.n > patched){ patched = s.patch.n; if (!swap(s.patch)) location.reload(); }
    if (s.building) return;   // the banner says the last build's result until the next one ends
    if (s.ok) banner(s.warnings, true); else banner(s.errors, false);
  }
  var es = new EventSource('__EVENTS__');
  es.onmessage = function(e){ apply(JSON.parse(e.data)); };
})();
