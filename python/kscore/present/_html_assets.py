"""The HTML page's inline style and script (nothing is loaded from anywhere).

The script does four things: sorts a table when a header is clicked (a
second click reverses it); on load, clicks the headers named in the URL's
``#sort=A,B`` (the same click, so a test can check sorting by reading the
page after load); filters a table's rows to the models whose name holds
the text typed in the box above it (``#find=TEXT`` types it on load); and
builds each pairwise matrix from its JSON data, so
that a 200 x 200 matrix costs its numbers, not 40,000 tags; and compares
any model with all others from the per-question estimates the page carries
(:data:`COMPARE_JS`; ``#compare=NAME`` picks a model on load).
"""

from __future__ import annotations

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

CSS = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.15em;margin:1.6em 0 .4em}h3{font-size:1em}
.foot{color:#444;max-width:60em}.note{color:#7a4a00}
.scroll{overflow:auto;max-height:80vh;border:1px solid #d0d7de}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:3px 8px;border-bottom:1px solid #eaeef2;white-space:nowrap}
thead th{position:sticky;top:0;background:#f6f8fa;z-index:1}
table.sortable thead th{cursor:pointer;user-select:none}
table.sortable thead th:hover{background:#eaeef2}
th[aria-sort=descending]::after{content:" \\25BC";font-size:.7em}
th[aria-sort=ascending]::after{content:" \\25B2";font-size:.7em}
td{text-align:right}td.name{text-align:left;position:sticky;left:0;background:#fff;z-index:1}
thead th[data-name=model]{left:0;z-index:2}
td[style]{position:relative;padding-bottom:9px}
td[style]::after{content:"";position:absolute;left:8px;right:8px;bottom:3px;height:4px;border-radius:2px;
background:linear-gradient(90deg,transparent calc(var(--m)*1% - 1px),#0b3d91 calc(var(--m)*1% - 1px),
#0b3d91 calc(var(--m)*1% + 1px),transparent calc(var(--m)*1% + 1px)),
linear-gradient(90deg,#eef1f4 calc(var(--l)*1%),#7fa8e0 calc(var(--l)*1%),#7fa8e0 calc(var(--h)*1%),
#eef1f4 calc(var(--h)*1%))}
th.sorted-by{color:#0b3d91}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:6px;max-width:100%}
figure{margin:0;border:1px solid #eaeef2;padding:2px 4px}figcaption{font-size:12px;white-space:nowrap;overflow:hidden}
svg{display:block;width:100%;height:auto}
svg .g{stroke:#e3e7eb;stroke-width:.6;fill:none}svg .ax{font-size:9px;fill:#666}
svg .axl{stroke:#8c959f;stroke-width:.8;fill:none}svg .at{font-size:10px;fill:#444;text-anchor:middle}
svg .tx{text-anchor:middle}svg .ty{text-anchor:end}
svg .band{opacity:.22;stroke:none}svg .line{fill:none;stroke-width:1.6}svg .ref{fill:none;stroke:#999;
stroke-width:1;stroke-dasharray:3 2}
.legend{display:flex;flex-wrap:wrap;gap:.2em 1.2em;font-size:13px}.legend i{display:inline-block;width:1.4em;
height:.35em;margin-right:.3em;vertical-align:middle}
table.pw td{padding:0;width:2.6em;height:1.5em;text-align:center;font-size:11px;border:1px solid #fff}
table.pw.dense td{width:9px;height:9px;min-width:9px;font-size:0}
table.pw th{font-size:11px;font-weight:normal;padding:0 4px;text-align:right}
table.pw thead th{text-align:center;padding:0}table.pw.dense thead th{font-size:7px}
.up1{background:#d7f0dc}.up2{background:#9fd8ab}.up3{background:#5cb873}.up4{background:#2e8b46;color:#fff}
.dn1{background:#fbe0dd}.dn2{background:#f4aea6}.dn3{background:#e6736a}.dn4{background:#b93a32;color:#fff}
.ns{background:#f2f3f5;color:#777}.na{background:#fff}
.sw{display:inline-block;width:1em;height:1em;vertical-align:middle;margin:0 .2em 0 .8em}
.cmp{margin:.6em 0}.cmp input{font:inherit;padding:2px 6px;width:22em}.cmp-msg{color:#444;margin-left:.6em}
.findbox{margin:.3em 0}.findbox input{font:inherit;padding:2px 6px;width:22em}.found{color:#444;margin-left:.6em}
"""

#: Decoding the per-question estimates and comparing one model with all
#: others: Pairs.listed's sums (kscore.leaderboard.stats.ranges) in the page's
#: script; tests/test_html_compare.py runs it in node against pair_rows.
COMPARE_JS = r"""
function kscoreDecode(D){
  var b=atob(D.x),u=new Uint8Array(b.length),i,N=D.models.length*D.q,X=new Float64Array(N);
  for(i=0;i<b.length;i++)u[i]=b.charCodeAt(i);
  var v=new DataView(u.buffer);
  for(i=0;i<N;i++){
    if(D.enc==='f64'){X[i]=v.getFloat64(8*i,true);continue;}
    var c=D.enc==='u8'?u[i]:v.getUint16(2*i,true);X[i]=c===D.miss?NaN:c/D.den;
  }
  return X;
}
function kscoreErfc(x){
  var z=Math.abs(x),t=1/(1+z/2),r=t*Math.exp(-z*z-1.26551223+t*(1.00002368+t*(.37409196+t*(.09678418+
    t*(-.18628806+t*(.27886807+t*(-1.13520398+t*(1.48851587+t*(-.82215223+t*.17087277)))))))));
  return x>=0?r:2-r;
}
function kscoreCompare(D,X,i){
  var L=D.models.length,Q=D.q,cl=D.cl,G=0,q,j,R={d:[],se:[],p:[],n:[],sig:[]};
  if(cl){for(q=0;q<Q;q++)G=Math.max(G,cl[q]+1);}
  var S=new Float64Array(G),hit=new Uint8Array(G);
  for(j=0;j<L;j++){
    var n=0,sd=0,a=i*Q,b=j*Q;
    for(q=0;q<Q;q++){var x=X[a+q],y=X[b+q];if(x===x&&y===y){n++;sd+=x-y;}}
    var d=sd/n,ss=0,v;
    if(cl){S.fill(0);hit.fill(0);}
    for(q=0;q<Q;q++){
      x=X[a+q];y=X[b+q];if(!(x===x&&y===y))continue;var e=x-y-d;
      if(cl){S[cl[q]]+=e;hit[cl[q]]=1;}else ss+=e*e;
    }
    if(cl){var g=0;for(q=0;q<G;q++){g+=hit[q];ss+=S[q]*S[q];}v=g>1?g/(g-1)*ss/(n*n):NaN;}
    else v=n>1?ss/(n*(n-1)):NaN;
    var se=Math.sqrt(v),t=se>0?d/se:(d===0?0:(d>0?Infinity:-Infinity));
    if(se!==se)t=NaN;
    var u=Math.abs(t)/Math.SQRT2;
    R.d.push(d);R.se.push(se);R.n.push(n);R.p.push(t===t?kscoreErfc(u):NaN);
    R.sig.push(j!==i&&t===t&&((D.ucut!==null&&u>=D.ucut)||(D.tcrit!==null&&Math.abs(t)>D.tcrit)));
  }
  return R;
}
"""

JS = COMPARE_JS + r"""
(function(){
function key(td){
  if(!td)return null;
  var v=td.getAttribute('data-v'),t=(v!==null?v:td.textContent).trim().replace(/,/g,'');
  if(t===''||t==='-')return null;
  var x=parseFloat(t);return isNaN(x)?t.toLowerCase():x;
}
function sortBy(th){
  var table=th.closest('table'),tb=table.tBodies[0],col=th.cellIndex,cur=th.getAttribute('aria-sort');
  var dir=cur?(cur==='descending'?1:-1):(+th.getAttribute('data-d')||1);
  Array.prototype.forEach.call(table.querySelectorAll('th[aria-sort]'),function(h){h.removeAttribute('aria-sort');});
  th.setAttribute('aria-sort',dir<0?'descending':'ascending');
  var rows=Array.prototype.map.call(tb.rows,function(r){return [key(r.cells[col]),+r.getAttribute('data-i'),r];});
  rows.sort(function(a,b){
    var x=a[0],y=b[0];
    if(x===null||y===null){return x===y?a[1]-b[1]:(x===null?1:-1);}
    if(typeof x!==typeof y){x=String(x);y=String(y);}
    return x<y?-dir:(x>y?dir:a[1]-b[1]);
  });
  rows.forEach(function(r){tb.appendChild(r[2]);});
}
Array.prototype.forEach.call(document.querySelectorAll('table.sortable thead th'),function(th){
  th.addEventListener('click',function(){sortBy(th);});
});
function cls(d,s,hb,big){
  if(d===null)return 'na';if(!s)return 'ns';
  var m=Math.abs(d)/big,b=m>.75?4:m>.5?3:m>.25?2:1;return ((d>0)===hb?'up':'dn')+b;
}
Array.prototype.forEach.call(document.querySelectorAll('.pw-data'),function(el){
  var D=JSON.parse(el.textContent),n=D.names.length,big=0,i,j,h=[];
  function at(i,j){
    if(i===j)return null;var a=i<j?i:j,b=i<j?j:i,q=a*n-a*(a+1)/2+(b-a-1),d=D.d[q];
    if(d===null)return null;var s=D.s.charAt(q)==='1';
    return i<j?[d,D.l[q],D.h[q],D.p[q],s]:[-d,-D.h[q],-D.l[q],D.p[q],s];
  }
  for(i=0;i<D.d.length;i++){if(D.d[i]!==null)big=Math.max(big,Math.abs(D.d[i]));}
  big=big||1;
  var dense=n>30,f=Math.pow(10,D.dig);
  h.push('<table class="pw'+(dense?' dense':'')+'"><thead><tr><th></th>');
  for(j=0;j<n;j++)h.push('<th>'+(j+1)+'</th>');
  h.push('</tr></thead><tbody>');
  for(i=0;i<n;i++){
    h.push('<tr><th>'+(i+1)+' '+D.short[i].replace(/&/g,'&amp;').replace(/</g,'&lt;')+'</th>');
    for(j=0;j<n;j++){
      var c=at(i,j),t=c?((c[0]>0?'+':'')+(Math.round(c[0]*f)/f).toFixed(D.dig)):'';
      h.push('<td class="'+(c?cls(c[0],c[4],D.hb,big):'na')+'">'+(dense?'':t)+'</td>');
    }
    h.push('</tr>');
  }
  h.push('</tbody></table>');
  var box=el.parentNode.querySelector('.pw-box');box.innerHTML=h.join('');
  box.addEventListener('mouseover',function(e){
    var td=e.target.closest('td'),tr=td&&td.parentNode;if(!td||td.title)return;
    var i=tr.sectionRowIndex,j=td.cellIndex-1,c=at(i,j);if(!c){return;}
    td.title=D.names[i]+' \u2212 '+D.names[j]+' = '+c[0]+' ['+c[1]+', '+c[2]+']'+
      (c[3]===null?'':', p = '+c[3])+(c[4]?' (significant)':' (not significant)');
  });
  var th=box.querySelectorAll('tbody th');
  for(i=0;i<n;i++){th[i].title=D.names[i];}
});
Array.prototype.forEach.call(document.querySelectorAll('.cmp'),function(box){
  var D=JSON.parse(box.querySelector('.cmp-data').textContent),inp=box.querySelector('input');
  var msg=box.querySelector('.cmp-msg'),out=box.querySelector('.cmp-box'),X=kscoreDecode(D);
  function num(x){return isFinite(x)?x.toFixed(4):'';}
  function esc(x){return x.replace(/&/g,'&amp;').replace(/</g,'&lt;');}
  function show(q){
    q=q.trim();var lq=q.toLowerCase(),i=D.models.indexOf(q),hits=0,k;
    if(i<0){for(k=0;k<D.models.length;k++){if(D.models[k].toLowerCase().indexOf(lq)>=0){if(i<0)i=k;hits++;}}}
    if(!q||i<0){msg.textContent=q?'no model holds '+q:'';out.innerHTML='';return;}
    msg.textContent=D.models[i]+(hits>1?' (the first of '+hits+' models holding '+q+')':'')+' minus each model';
    var R=kscoreCompare(D,X,i),h=['<table><thead><tr><th>#</th><th>model</th><th>difference</th><th>interval</th>'+
      '<th>p</th><th>questions</th><th></th></tr></thead><tbody>'];
    for(k=0;k<D.models.length;k++){
      if(k===i)continue;var d=R.d[k],s=R.sig[k];
      h.push('<tr><td>'+(k+1)+'</td><td class="name">'+esc(D.models[k])+'</td><td class="'+
        (isNaN(d)?'na':(s?((d>0)===D.hb?'up2':'dn2'):'ns'))+'">'+(d>0?'+':'')+num(d)+'</td><td>'+
        (isFinite(R.se[k])?'['+num(d-D.z*R.se[k])+', '+num(d+D.z*R.se[k])+']':'')+'</td><td>'+
        (isNaN(R.p[k])?'':R.p[k].toPrecision(2))+'</td><td>'+R.n[k]+'</td><td>'+(s?'significant':'')+'</td></tr>');
    }
    h.push('</tbody></table>');out.innerHTML=h.join('');
  }
  inp.addEventListener('change',function(){show(inp.value);});
  var c=/compare=([^&]*)/.exec(location.hash.slice(1));
  if(c){inp.value=decodeURIComponent(c[1]);show(inp.value);}
});
function finder(box){
  var inp=box.querySelector('input'),out=box.querySelector('.found');
  var t=box.parentNode.querySelector('table.sortable'),rows=t.tBodies[0].rows;
  function apply(){
    var q=inp.value.trim().toLowerCase(),n=0;
    for(var k=0;k<rows.length;k++){
      var hit=!q||rows[k].cells[1].textContent.toLowerCase().indexOf(q)>=0;
      rows[k].hidden=!hit;if(hit)n++;
    }
    out.textContent=q?n+' of '+rows.length+' models':'';
  }
  inp.addEventListener('input',apply);
  return function(q){inp.value=q;apply();};
}
var finders=Array.prototype.map.call(document.querySelectorAll('.findbox'),finder);
var f=/find=([^&]*)/.exec(location.hash.slice(1));
if(f&&finders.length){finders[0](decodeURIComponent(f[1]));}
var m=/sort=([^&]*)/.exec(location.hash.slice(1));
if(m){
  var t=document.querySelector('table.sortable');
  decodeURIComponent(m[1]).split(',').forEach(function(name){
    Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th){
      if(th.getAttribute('data-name')===name)th.click();
    });
  });
}
})();
"""
