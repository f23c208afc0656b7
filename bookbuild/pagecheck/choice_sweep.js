
(opts) => {
  const V = window.MLSYSIM_PAGE && window.MLSYSIM_PAGE.variants, out = [];
  const selA = document.getElementById('mlsysim-choice-accelerator'), selM = document.getElementById('mlsysim-choice-model');
  const selP = document.getElementById('mlsysim-choice-precision');
  if (!V || !selA || !selM || !selP) return [{key: null, what: "the reader's choice is missing"}];
  const lang = window.MLSYSIM_PAGE.lang, idx = {};
  V.attrs.forEach((k, i) => { idx[k] = i; });
  const refKey = V.reference.accelerator + '|' + V.reference.model + '|' + V.reference.precision;
  const spans = Array.from(document.querySelectorAll('article .mlsysim-v'));
  const status = () => (document.querySelector('#mlsysim-choice .mc-status') || {}).innerText || '';
  const labels = [].concat(V.accelerators.map(a => a.label), V.models.map(m => m.label));
  /* words a Chinese reader may see in Latin letters: names of parts and models, units, precisions */
  const ok = /^(GB|TB|GiB|TiB|kB|MB|FLOP|TFLOP|PFLOP|bf16|fp16|fp8|fp4|int8|int4|NVIDIA|AMD|Google|TPU|SXM|HGX|DGX|PCIe|Llama|MoE|HBM|KV)$/i;
  const english = t => {
    let s = t;
    labels.concat(Object.values(V.choices).map(c => c.node || '')).sort((x, y) => y.length - x.length)
      .forEach(l => { if (l) s = s.split(l).join(' '); });
    return (s.match(/[A-Za-z]{4,}/g) || []).filter(w => !ok.test(w));
  };
  let previous = document.documentElement.getAttribute('data-mlsysim-choice');
  const keys = opts.keys || Object.keys(V.choices);
  for (const key of keys) {
    const c = V.choices[key], [a, m, p] = key.split('|');
    selA.value = a; selM.value = m; selP.value = p;
    selM.dispatchEvent(new Event('change', {bubbles: true}));
    const problems = [], shownChoice = document.documentElement.getAttribute('data-mlsysim-choice');
    const st = status();
    if (c.error) {
      if (!document.querySelector('#mlsysim-choice .mcs-error')) problems.push('a choice that cannot be computed is not said so');
      /* the page moves to a choice it can compute (the model kept, another accelerator) and the selects follow */
      const sel = selA.value + '|' + selM.value + '|' + selP.value, shownKey = shownChoice === 'reference' ? refKey : shownChoice;
      if (sel !== shownKey) problems.push('the selects show ' + sel + ' while the page shows ' + shownKey);
      if (V.choices[shownKey] && V.choices[shownKey].error) problems.push('the page shows a choice it cannot compute');
      previous = shownChoice;
      const raw = String(c.error);
      if (/\b[A-Z][A-Za-z]*(Error|Exception)\b|Traceback/.test(st)) problems.push('the choice bar shows exception text: ' + st.slice(0, 160));
      if (lang === 'zh' && english(st).length) problems.push('the choice bar speaks English to a Chinese reader: ' + english(st).slice(0, 6).join(' '));
    } else {
      const want = key === refKey ? 'reference' : key;
      if (shownChoice !== want) problems.push('the page shows ' + shownChoice + ', not the choice');
      let wrong = 0, first = '';
      for (const s of spans) {
        const i = idx[s.getAttribute('data-attr')];
        const v = (key !== refKey && i !== undefined && c.v && c.v[i] !== null) ? V.values[c.v[i]] : null;
        const expect = (v === null || v === undefined) ? s.getAttribute('data-ref') : v;
        if (s.textContent !== expect) { wrong++; if (!first) first = s.getAttribute('data-attr') + ' shows ' + s.textContent + ', not ' + expect; }
      }
      if (wrong) problems.push(wrong + ' computed numbers not swapped (' + first + ')');
      previous = shownChoice;
      if (lang === 'zh') {
        const said = st + ' ' + Array.from(document.querySelectorAll('.mlsysim-claim-marker, .mlsysim-claim-marker-summary')).map(e => e.innerText).join(' ');
        const en = english(said);
        if (en.length) problems.push('Chinese page shows English: ' + en.slice(0, 6).join(' '));
      }
    }
    /* what the choice changed (the reference page had the whole check): the blocks holding changed
       numbers, the marked claims and the choice bar */
    const blocks = new Set();
    document.querySelectorAll('article .mlsysim-v-changed, article .mlsysim-claim-marker, article .mlsysim-claim-flag').forEach(n =>
      blocks.add(n.closest('li, tr, p, dd, figcaption, caption, blockquote, h1, h2, h3, h4') || n.parentNode));
    const said = [st].concat(Array.from(blocks).map(b => b.innerText)).join('\n');
    window.__pagecheck.errorsIn(said).forEach(f =>
      problems.push('shows ' + f.what + ' ' + JSON.stringify(f.match) + ': “' + f.context + '”'));
    const de = document.documentElement, vw = de.clientWidth, pw = Math.max(de.scrollWidth, document.body.scrollWidth);
    if (pw > vw + 1)
      problems.push('page is ' + pw + 'px wide in a ' + vw + 'px viewport (' + window.__pagecheck.escapees(document.body, 0, vw).slice(0, 3).map(w => w.el + ' reaches ' + w.right + 'px').join('; ') + ')');
    if (opts.wide) {
      const main = document.querySelector('main.content').getBoundingClientRect(), seen = new Set();
      blocks.forEach(b => {
        const box = b.closest('table') || b;
        if (seen.has(box)) return;
        seen.add(box);
        const r = box.getBoundingClientRect();
        if (r.right > main.right + 1 || r.left < main.left - 1)
          problems.push('content leaves its column: ' + window.__pagecheck.describe(box).slice(0, 80) + ' spans ' + Math.round(r.left) + '–' + Math.round(r.right) + 'px');
      });
    }
    problems.forEach(p => out.push({key: key, what: p}));
  }
  return out;
}
