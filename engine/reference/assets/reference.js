// petctl API reference: schema views rendered when opened, and try-it
// panels that send real requests. No library, no network but the request
// the reader sends. Text from the document is only ever set as textContent.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('petctl-data').textContent);
  var TIMEOUT_MS = 30000; // a try-it request gives up after this
  var MAX_BODY = 1 << 20; // the part of a response body shown, in bytes
  var KEY_PREFIX = 'petctl.key.';
  var SERVER_KEY = 'petctl.server';
  // Headers the reader should see first: deprecation (RFC 9745), sunset
  // (RFC 8594) and links to the replacement.
  var NOTABLE = ['deprecation', 'sunset', 'link'];

  // sessionStorage can be refused (privacy settings, file: pages): the
  // page then works without remembering.
  var store = {
    get: function (k) { try { return window.sessionStorage.getItem(k) || ''; } catch (e) { return ''; } },
    set: function (k, v) {
      try {
        if (v) { window.sessionStorage.setItem(k, v); } else { window.sessionStorage.removeItem(k); }
      } catch (e) { /* not remembered */ }
    }
  };

  function el(tag, attrs, children) {
    var n = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') { n.textContent = attrs[k]; } else { n.setAttribute(k, attrs[k]); }
    });
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) { n.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); }
    });
    return n;
  }

  // ---- Schemas: one level at a time, when a reader opens it.

  function expandable(e) {
    return (e.props && e.props.length) || e.items !== undefined || e.extra !== undefined ||
      (e.allOf && e.allOf.length) || (e.oneOf && e.oneOf.length) || (e.anyOf && e.anyOf.length) || e.not !== undefined;
  }

  function facts(e) {
    return (e.facts || []).map(function (f) { return el('span', { 'class': 'fact', text: f }); });
  }

  function nested(id, label) {
    var d = el('details', { 'class': 'schema', 'data-schema': String(id) }, [
      el('summary', { text: label }), el('div', { 'class': 'tree' })
    ]);
    return d;
  }

  function member(id, label) {
    var e = data.schemas[id];
    var li = el('li', {}, [el('span', { 'class': 'prop-name', text: label }), ' ',
      el('span', { 'class': 'type', text: e.type })].concat(facts(e)));
    if (e.desc) { li.appendChild(el('div', { 'class': 'prose desc', text: e.desc })); }
    if (expandable(e)) { li.appendChild(nested(id, 'Fields of ' + label)); }
    return li;
  }

  function renderSchema(tree, id) {
    var e = data.schemas[id];
    if (!e) { return; }
    tree.appendChild(el('p', {}, [el('span', { 'class': 'type', text: e.type })].concat(facts(e))));
    if (e.desc) { tree.appendChild(el('p', { 'class': 'prose desc', text: e.desc })); }
    if (e.props && e.props.length) {
      var ul = el('ul');
      e.props.forEach(function (p) {
        var c = data.schemas[p.s];
        var li = el('li', {}, [el('code', { 'class': 'prop-name', text: p.n }), ' ',
          p.r ? el('span', { 'class': 'req', text: 'required' }) : null, p.r ? ' ' : null,
          el('span', { 'class': 'type', text: c.type })].concat(facts(c)));
        if (c.desc) { li.appendChild(el('div', { 'class': 'prose desc', text: c.desc })); }
        if (expandable(c)) { li.appendChild(nested(p.s, 'Fields of ' + p.n)); }
        ul.appendChild(li);
      });
      tree.appendChild(ul);
    }
    var groups = [];
    if (e.items !== undefined) { groups.push(['Items', [e.items]]); }
    if (e.extra !== undefined) { groups.push(['Other properties', [e.extra]]); }
    if (e.allOf) { groups.push(['All of', e.allOf]); }
    if (e.oneOf) { groups.push(['Exactly one of', e.oneOf]); }
    if (e.anyOf) { groups.push(['Any of', e.anyOf]); }
    if (e.not !== undefined) { groups.push(['Not', [e.not]]); }
    groups.forEach(function (g) {
      var ul = el('ul');
      g[1].forEach(function (id, i) {
        var name = data.schemas[id].name;
        ul.appendChild(member(id, g[1].length > 1 ? (name || 'option ' + (i + 1)) : (name || g[0].toLowerCase())));
      });
      tree.appendChild(el('div', {}, [el('strong', { text: g[0] + ':' }), ul]));
    });
  }

  // toggle does not bubble; a capturing listener sees every details element.
  document.addEventListener('toggle', function (ev) {
    var d = ev.target;
    if (!d.open || !d.matches) { return; }
    if (d.matches('details.schema') && !d.dataset.rendered) {
      d.dataset.rendered = '1';
      renderSchema(d.querySelector('.tree'), Number(d.dataset.schema));
    }
    if (d.matches('details.op-body')) {
      var box = d.querySelector('.tryit');
      if (box && !box.dataset.built) { box.dataset.built = '1'; buildTry(box, box.dataset.try); }
    }
  }, true);

  // ---- Try-it settings: the server and the credentials.

  function mockURL() { return window.location.origin + data.basePath; }

  function absolute(u) {
    try { return new URL(u, window.location.href).href.replace(/\/$/, ''); } catch (e) { return u; }
  }

  var serverSelect = document.getElementById('try-server');
  (function () {
    var options = [];
    if (data.mock) { options.push([mockURL(), 'This mock: ' + mockURL()]); }
    (data.servers || []).forEach(function (s) { options.push([absolute(s), s]); });
    var wanted = store.get(SERVER_KEY) || (data.mock ? mockURL() : absolute(data.server || ''));
    options.forEach(function (o) {
      var opt = el('option', { value: o[0], text: o[1] });
      if (o[0] === wanted) { opt.selected = true; }
      serverSelect.appendChild(opt);
    });
    serverSelect.addEventListener('change', function () { store.set(SERVER_KEY, serverSelect.value); refreshCurls(); });
    var mock = document.getElementById('mock-url');
    if (mock) { mock.textContent = mockURL(); }
  })();

  var schemes = {};
  (data.schemes || []).forEach(function (s) { schemes[s.name] = s; });
  document.querySelectorAll('input.key').forEach(function (input) {
    var k = KEY_PREFIX + input.dataset.scheme;
    input.value = store.get(k);
    input.addEventListener('input', function () { store.set(k, input.value); refreshCurls(); });
  });
  function keyOf(name) { return store.get(KEY_PREFIX + name); }

  // alternative picks the security alternative try-it sends: the first
  // whose every credential is entered and sendable, else the first.
  function alternative(op) {
    var alts = op.security || [];
    for (var i = 0; i < alts.length; i++) {
      if (alts[i].every(function (n) { return schemes[n] && !schemes[n].unsupported && keyOf(n); })) { return alts[i]; }
    }
    return alts[0] || [];
  }

  // ---- Try-it panels.

  var curlUpdaters = [];
  function refreshCurls() { curlUpdaters.forEach(function (f) { f(); }); }

  function buildTry(box, id) {
    var op = data.ops[id];
    if (!op) { return; }
    var fields = [];
    var form = el('form', { 'class': 'try-form', novalidate: '' });
    box.appendChild(el('h4', { id: id + '-try', text: 'Try it' }));
    form.setAttribute('aria-labelledby', id + '-try');
    (op.params || []).forEach(function (p, i) {
      var fid = id + '-p' + i;
      var input;
      if (p.enum && p.enum.length) {
        input = el('select', { id: fid });
        if (!p.required) { input.appendChild(el('option', { value: '', text: '(not sent)' })); }
        p.enum.forEach(function (v) {
          var o = el('option', { value: v, text: v });
          if (v === p.value) { o.selected = true; }
          input.appendChild(o);
        });
      } else {
        input = el('input', { id: fid, type: 'text', spellcheck: 'false', autocomplete: 'off' });
        input.value = p.value || '';
      }
      if (p.required) { input.setAttribute('aria-required', 'true'); }
      fields.push([p, input]);
      form.appendChild(el('div', { 'class': 'field' }, [
        el('label', { 'for': fid, text: p.name + ' (' + p.in + (p.required ? ', required' : '') + ')' }), input]));
    });
    var media = null;
    var body = null;
    if (op.media) {
      if (op.media.length > 1) {
        media = el('select', { id: id + '-media' });
        op.media.forEach(function (m) { media.appendChild(el('option', { value: m, text: m })); });
        form.appendChild(el('div', { 'class': 'field' }, [el('label', { 'for': id + '-media', text: 'Content-Type' }), media]));
      }
      body = el('textarea', { id: id + '-body', spellcheck: 'false' });
      body.value = op.body || '';
      form.appendChild(el('div', { 'class': 'field' }, [
        el('label', { 'for': id + '-body', text: 'Body (' + (op.media[0] || 'no media type') + (op.bodyRequired ? ', required' : '') + ')' }), body]));
    }
    var send = el('button', { type: 'submit', text: 'Send request' });
    var copy = el('button', { type: 'button', 'class': 'secondary', text: 'Copy curl' });
    form.appendChild(el('div', { 'class': 'try-row' }, [send, copy]));
    var curl = el('code');
    form.appendChild(el('p', { 'class': 'hint', text: 'The same request with curl (credentials as shell variables):' }));
    form.appendChild(el('pre', { 'class': 'curl', tabindex: '0' }, [curl]));
    var result = el('div', { 'class': 'result', role: 'status', 'aria-live': 'polite' });
    box.appendChild(form);
    box.appendChild(result);

    function current() {
      return prepare(op, fields, media ? media.value : (op.media ? op.media[0] : ''), body ? body.value : null);
    }
    function updateCurl() {
      var req = current();
      curl.textContent = req.error ? req.error : req.curl;
    }
    curlUpdaters.push(updateCurl);
    form.addEventListener('input', updateCurl);
    form.addEventListener('change', updateCurl);
    updateCurl();

    copy.addEventListener('click', function () {
      var text = curl.textContent;
      var done = function () { copy.textContent = 'Copied'; setTimeout(function () { copy.textContent = 'Copy curl'; }, 1500); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () { selectText(curl); });
      } else {
        selectText(curl);
        try { if (document.execCommand('copy')) { done(); } } catch (e) { /* selected for the reader to copy */ }
      }
    });

    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var req = current();
      result.textContent = '';
      if (req.error) { result.appendChild(el('p', { 'class': 'note', text: req.error })); return; }
      send.disabled = true;
      result.appendChild(el('p', { text: 'Sending ' + req.method + ' ' + req.shown + ' …' }));
      perform(req).then(function (out) {
        result.textContent = '';
        showResult(result, out);
      }).finally(function () { send.disabled = false; });
    });
  }

  function selectText(node) {
    var r = document.createRange();
    r.selectNodeContents(node);
    var s = window.getSelection();
    s.removeAllRanges();
    s.addRange(r);
  }

  // sq quotes for a POSIX shell; dq is for text inside double quotes, where
  // a variable is expanded.
  function sq(s) { return "'" + String(s).replace(/'/g, "'\\''") + "'"; }
  function dq(s) { return String(s).replace(/[\\"$`]/g, '\\$&'); }

  function base64(s) {
    var bytes = new TextEncoder().encode(s);
    var bin = '';
    bytes.forEach(function (b) { bin += String.fromCharCode(b); });
    return btoa(bin);
  }

  // prepare builds the request from the form: what fetch sends, and the
  // curl command, which names credentials as shell variables.
  function prepare(op, fields, mediaType, bodyText) {
    var server = serverSelect.value;
    if (!server) { return { error: 'Choose a server to send requests to.' }; }
    var path = op.path;
    var query = [];
    var headers = [], curlHeaders = [];
    var cookies = [], curlCookies = [];
    for (var i = 0; i < fields.length; i++) {
      var p = fields[i][0], v = fields[i][1].value;
      if (v === '') {
        if (p.required) { return { error: 'Fill in ' + p.name + ' (' + p.in + ').' }; }
        continue;
      }
      if (p.in === 'path') { path = path.split('{' + p.name + '}').join(encodeURIComponent(v)); }
      if (p.in === 'query') { query.push([p.name, v]); }
      if (p.in === 'header') { headers.push([p.name, v]); curlHeaders.push('-H ' + sq(p.name + ': ' + v)); }
      if (p.in === 'cookie') { cookies.push([p.name, v]); curlCookies.push(sq(p.name + '=' + v)); }
    }
    var url;
    try { url = new URL(server.replace(/\/$/, '') + path); } catch (e) { return { error: 'Not a URL: ' + server + path }; }
    query.forEach(function (q) { url.searchParams.append(q[0], q[1]); });
    var curlURL = sq(url.href);
    var hasQuery = url.search !== '';
    // shown is the URL as the page writes it: a key in the query is not shown.
    var shown = new URL(url.href);
    var missing = [];
    alternative(op).forEach(function (name) {
      var s = schemes[name];
      if (!s || s.unsupported) { missing.push(name); return; }
      var key = keyOf(name);
      if (!key) { missing.push(name); }
      var variable = '$' + s.var;
      if (s.kind === 'basic') {
        headers.push(['Authorization', 'Basic ' + base64(key)]);
        curlHeaders.push('-u "' + variable + '"');
      } else if (s.kind !== 'apiKey') {
        headers.push(['Authorization', 'Bearer ' + key]);
        curlHeaders.push('-H "Authorization: Bearer ' + variable + '"');
      } else if (s.in === 'header') {
        headers.push([s.param, key]);
        curlHeaders.push('-H "' + dq(s.param) + ': ' + variable + '"');
      } else if (s.in === 'query') {
        url.searchParams.append(s.param, key);
        shown.searchParams.append(s.param, '…');
        curlURL += '"' + (hasQuery ? '&' : '?') + dq(encodeURIComponent(s.param)) + '=' + variable + '"';
        hasQuery = true;
      } else if (s.in === 'cookie') {
        cookies.push([s.param, key]);
        curlCookies.push('"' + dq(s.param) + '=' + variable + '"');
      }
    });
    var req = { method: op.method, url: url.href, shown: shown.href, headers: headers, cookies: cookies, body: null, missing: missing };
    var parts = ['curl -i'];
    if (op.method !== 'GET') { parts.push('-X ' + op.method); }
    parts.push(curlURL);
    if (bodyText !== null && (bodyText !== '' || op.bodyRequired)) {
      req.body = bodyText;
      headers.push(['Content-Type', mediaType]);
      curlHeaders.unshift('-H ' + sq('Content-Type: ' + mediaType));
    }
    parts = parts.concat(curlHeaders);
    if (curlCookies.length) { parts.push('-b ' + curlCookies.join("'; '")); }
    if (req.body !== null) { parts.push('--data-raw ' + sq(req.body)); }
    req.curl = parts.join(' \\\n  ');
    return req;
  }

  function sameOrigin(u) { return new URL(u).origin === window.location.origin; }

  // perform sends the request with a time limit and reads at most MAX_BODY
  // bytes of the answer.
  function perform(req) {
    var same = sameOrigin(req.url);
    if (req.cookies.length && !same) {
      return Promise.resolve({ error: 'A browser cannot send a cookie to another origin: run the curl command instead.' });
    }
    var ctrl = new AbortController();
    var timer = setTimeout(function () { ctrl.abort(); }, TIMEOUT_MS);
    var h = new Headers();
    try {
      req.headers.forEach(function (kv) { h.append(kv[0], kv[1]); });
    } catch (e) {
      clearTimeout(timer);
      return Promise.resolve({ error: 'The browser refuses this header: ' + e.message });
    }
    // Cookies for the mock's origin live only for this request.
    req.cookies.forEach(function (kv) {
      document.cookie = encodeURIComponent(kv[0]) + '=' + encodeURIComponent(kv[1]) + '; path=/; SameSite=Strict';
    });
    var started = performance.now();
    return fetch(req.url, {
      method: req.method, headers: h, body: req.body, signal: ctrl.signal,
      credentials: same ? 'same-origin' : 'omit', cache: 'no-store', referrerPolicy: 'no-referrer', redirect: 'follow'
    }).then(function (res) {
      return readBounded(res).then(function (text) {
        return { res: res, text: text.text, cut: text.cut, ms: performance.now() - started, same: same, missing: req.missing };
      });
    }).catch(function (e) {
      if (e.name === 'AbortError') { return { error: 'No answer within ' + TIMEOUT_MS / 1000 + ' s.' }; }
      return { error: 'The request could not be sent (' + e.message + '). The server may be down, or, on another origin, not allow this page (CORS).' };
    }).finally(function () {
      clearTimeout(timer);
      req.cookies.forEach(function (kv) { document.cookie = encodeURIComponent(kv[0]) + '=; Max-Age=0; path=/; SameSite=Strict'; });
    });
  }

  function readBounded(res) {
    if (!res.body || !res.body.getReader) {
      return res.text().then(function (t) { return { text: t.slice(0, MAX_BODY), cut: t.length > MAX_BODY }; });
    }
    var reader = res.body.getReader();
    var chunks = [], size = 0;
    function next() {
      return reader.read().then(function (r) {
        if (r.done) { return false; }
        chunks.push(r.value);
        size += r.value.length;
        if (size >= MAX_BODY) { reader.cancel(); return true; }
        return next();
      });
    }
    return next().then(function (cut) {
      var all = new Uint8Array(Math.min(size, MAX_BODY));
      var at = 0;
      chunks.forEach(function (c) {
        var part = c.subarray(0, Math.min(c.length, all.length - at));
        all.set(part, at);
        at += part.length;
      });
      return { text: new TextDecoder().decode(all), cut: cut };
    });
  }

  function showResult(box, out) {
    if (out.error) { box.appendChild(el('p', { 'class': 'note', text: out.error })); return; }
    var res = out.res;
    box.appendChild(el('p', { 'class': 'status-line' }, [
      el('span', { 'class': 'status s' + String(res.status)[0], text: String(res.status) }), ' ' + (res.statusText || ''),
      el('span', { 'class': 'media', text: ' · ' + Math.round(out.ms) + ' ms' })]));
    if (out.missing.length) {
      box.appendChild(el('p', { 'class': 'note', text: 'Sent without a credential for ' + out.missing.join(', ') + ': enter it under Try-it settings.' }));
    }
    var names = [];
    res.headers.forEach(function (v, k) { names.push([k, v]); });
    names.sort(function (a, b) {
      var na = NOTABLE.indexOf(a[0]) >= 0 ? 0 : 1, nb = NOTABLE.indexOf(b[0]) >= 0 ? 0 : 1;
      return na - nb || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    });
    var dl = el('dl', { 'class': 'headers' });
    names.forEach(function (kv) {
      var wrap = el('div', NOTABLE.indexOf(kv[0]) >= 0 ? { 'class': 'key-header' } : {}, [el('dt', { text: kv[0] }), el('dd', { text: kv[1] })]);
      dl.appendChild(wrap);
    });
    box.appendChild(el('h5', { text: 'Headers' }));
    box.appendChild(dl);
    if (!out.same) {
      box.appendChild(el('p', { 'class': 'hint', text: 'From another origin a page reads only the headers the server exposes (CORS).' }));
    }
    var text = out.text;
    var type = res.headers.get('content-type') || '';
    if (/json/i.test(type)) {
      try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* shown as sent */ }
    }
    box.appendChild(el('h5', { text: 'Body' }));
    box.appendChild(el('pre', { 'class': 'body', tabindex: '0' }, [el('code', { text: text || '(empty)' })]));
    if (out.cut) { box.appendChild(el('p', { 'class': 'hint', text: 'Only the first ' + MAX_BODY + ' bytes are shown.' })); }
  }

  // ---- Navigation: a link to an operation opens it; a phone starts with
  // the contents closed.

  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    var body = target && target.querySelector && target.querySelector('details.op-body');
    if (body) { body.open = true; }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  if (window.matchMedia && window.matchMedia('(max-width: 50rem)').matches) {
    var toc = document.querySelector('.toc-box');
    if (toc) { toc.open = false; }
  }
})();
