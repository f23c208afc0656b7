() => { const spans = Array.from(document.querySelectorAll('article .mlsysim-v'));
  spans.sort((a, b) => b.textContent.length - a.textContent.length);
  const out = [], vw = document.documentElement.clientWidth;
  for (const s of spans.slice(0, 3)) {
    s.scrollIntoView({block: 'center'}); s.focus();
    const t = document.getElementById('mlsysim-tip');
    if (t && !t.hidden) {
      const r = t.getBoundingClientRect();
      if (t.scrollWidth > t.clientWidth + 1 || r.right > vw + 1 || r.left < -1)
        out.push(s.getAttribute('data-attr') + ' (' + t.scrollWidth + ' px of content in a ' + t.clientWidth
                 + ' px box, ' + Math.round(r.left) + '-' + Math.round(r.right) + ' px of a ' + vw + ' px window)');
    }
    s.blur();
  }
  return out; }