
(function(){
var root=document.getElementById('mlsysim-explorer');
var D=JSON.parse(document.getElementById('mlsysim-explorer-data').textContent);
var sa=document.getElementById('mlsysim-explorer-accelerator'),
    sm=document.getElementById('mlsysim-explorer-model'),
    sp=document.getElementById('mlsysim-explorer-precision'),
    st=document.getElementById('mlsysim-explorer-status'),
    g=document.getElementById('mlsysim-explorer-plot');
function redraw(r){var F=window.mlsysimFigures;if(!F||!g._mlsysimSpec)return;
  var s=JSON.parse(JSON.stringify(g._mlsysimSpec));
  for(var i=0;i<r.traces.length&&i<s.data.length;i++){var t=r.traces[i],d=s.data[i];
    d.x=t.x;d.y=t.y;if(t.name!==null)d.name=t.name;if(t.customdata!==null)d.customdata=t.customdata;}
  (s.layout.shapes||[]).forEach(function(h){if(h.name==='ridge_line'){h.x0=r.ridge;h.x1=r.ridge;}});
  F.update(g,s).then(function(){g.setAttribute('data-accelerator',root.getAttribute('data-accelerator'));
    g.setAttribute('data-precision',root.getAttribute('data-precision'));});}
function avail(){var u=D.unavailable[sa.value]||[];
  for(var i=0;i<sp.options.length;i++){var o=sp.options[i],off=u.indexOf(o.value)>=0;
    o.disabled=off;o.textContent=off?o.getAttribute('data-off'):o.value;}}
function show(want){var a=sa.value,m=sm.value,p=want||sp.value,msg='';
  var fb=(D.fallback[a]||{})[p]; if(fb){msg=fb[1];p=fb[0];} sp.value=p;
  var e=D.values[a][p][m];
  var L=D.labels[String(e.context||D.context)];
  for(var i=0;i<D.shown_keys.length;i++){var k=D.shown_keys[i],c=root.querySelector('[data-key="'+k+'"]'),h=root.querySelector('[data-label="'+k+'"]');
    if(c)c.textContent=e.shown[i];if(h&&L)h.textContent=L[k];}
  st.textContent=msg;
  root.setAttribute('data-accelerator',a);root.setAttribute('data-model',m);root.setAttribute('data-precision',p);
  redraw(D.roofline[a][p]);}
var last=sp.value;
sa.addEventListener('change',function(){avail();show(last);});
sm.addEventListener('change',function(){show();});
sp.addEventListener('change',function(){last=sp.value;show();});
avail();show();root.setAttribute('data-ready','1');
})();
