() => {
  const out = [], vw = document.documentElement.clientWidth, seen = {};
  const links = Array.from(document.querySelectorAll("article a.quarto-xref, article a[role='doc-biblioref']"));
  for (const a of links) {      /* one link of each kind: section, figure, table, equation, citation; here or on another page */
    const h = a.getAttribute('href') || '', id = h.split('#')[1] || '';
    const kind = (h.charAt(0) === '#' ? '' : 'another page: ') + (a.getAttribute('role') === 'doc-biblioref' ? 'citation' : id.split('-')[0]);
    if (seen[kind]) continue;
    seen[kind] = 1;
    a.scrollIntoView({block: 'center'}); a.focus();
    const t = document.getElementById('xref-preview'), name = kind + ' “' + a.textContent + '”';
    if (!t || t.hidden || !t.textContent.trim()) { out.push('focusing the ' + name + ' shows no preview'); continue; }
    if (a.getAttribute('aria-describedby') !== 'xref-preview') out.push('the ' + name + ' is not described by its preview (aria-describedby)');
    const r = t.getBoundingClientRect();
    if (r.right > vw + 1 || r.left < -1) out.push('the preview of the ' + name + ' leaves the window (' + Math.round(r.left) + '-' + Math.round(r.right) + ' px of ' + vw + ')');
    if (t.querySelector('[id], .mlsysim-v, script, [tabindex]:not([tabindex="-1"])')) out.push('the preview of the ' + name + ' copies ids, computed numbers, scripts or tab stops');
    if (kind.endsWith('eq') && !/\(\S+\)/.test(t.textContent)) out.push('the preview of the ' + name + ' has no equation number');
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
    if (!t.hidden) out.push('Escape does not close the preview of the ' + name);
    a.blur();
  }
  const hs = Array.from(document.querySelectorAll('article h2[id], article h3[id], article h4[id], article h5[id], article h6[id]'));
  const bare = hs.filter(h => !h.querySelector('a.anchor-link[href="#' + CSS.escape(h.id) + '"][aria-label]'));
  if (bare.length) out.push(bare.length + ' of ' + hs.length + ' headings have no link to themselves (first: ' + bare[0].id + ')');
  window.scrollTo(0, 0);
  return out;
}