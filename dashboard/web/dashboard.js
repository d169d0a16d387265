// Troupe's dashboard: reads the Kubernetes API (list, then watch) with the user's bearer
// token and draws the queue tree, the jobs of each queue and a map of the GPUs. Read-only.
// Plain JavaScript, no framework: a few hundred objects redrawn a few times a second need
// none, and the page must work from the binary with no network.
(() => {
  'use strict';

  const GPU = 'nvidia.com/gpu';
  const TOKEN_KEY = 'troupe.dashboard.token';
  const RENDER_DELAY_MS = 200;

  // What the page reads. A watch holds one HTTP/1.1 connection and browsers open six to a
  // host, so the few PriorityClasses are listed now and then rather than watched.
  const RESOURCES = [
    {name: 'queues', path: '/apis/troupe.dev/v1alpha1/queues', watch: true},
    {name: 'trainingjobs', path: '/apis/troupe.dev/v1alpha1/trainingjobs', watch: true},
    {name: 'podgroups', path: '/apis/troupe.dev/v1alpha1/podgroups', watch: true},
    {name: 'pods', path: '/api/v1/pods', query: 'fieldSelector=spec.schedulerName%3Dtroupe', watch: true},
    {name: 'nodes', path: '/api/v1/nodes', watch: true},
    {name: 'priorityclasses', path: '/apis/scheduling.k8s.io/v1/priorityclasses', watch: false,
     everyMs: 60000},
  ];

  const $ = (id) => document.getElementById(id);

  // ---- state ------------------------------------------------------------------------
  let token = '';
  let generation = 0;  // bumped at each sign-in and sign-out: older loops stop
  let aborter = null;
  let data = {};       // resource name -> Map(key -> object)
  let loaded = new Set();
  let denied = {};     // resource name -> message (403)
  let live = {};       // resource name -> watch open
  let renderTimer = 0;
  let renders = 0;

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  // ---- small helpers ----------------------------------------------------------------
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'data') {
        for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) el.dataset[dk] = String(dv);
      } else if (k === 'style') Object.assign(el.style, v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : String(c));
    }
    return el;
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const keyOf = (o) => (o.metadata.namespace ? o.metadata.namespace + '/' : '') + o.metadata.name;
  // Names in natural order (rack-2 before rack-10), then byte order: a total order.
  const byName = (a, b) => a.localeCompare(b, 'en', {numeric: true}) || (a < b ? -1 : a > b ? 1 : 0);

  const SUFFIXES = {n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
    Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60};
  // A Kubernetes quantity ("8", "500m", "64Gi", "1e3") as a number; null when absent.
  function quantity(v) {
    if (v === undefined || v === null || v === '') return null;
    if (typeof v === 'number') return v;
    const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/
        .exec(String(v).trim());
    if (!m) return null;
    let n = parseFloat(m[1]);
    if (m[2] !== undefined) n *= 10 ** parseInt(m[2], 10);
    else if (m[3] !== undefined) n *= SUFFIXES[m[3]];
    return n;
  }

  function amount(resource, n) {
    if (n === null || n === undefined) return '∞';
    if (resource === 'memory' || resource.endsWith('storage')) {
      if (n >= 2 ** 30) return +(n / 2 ** 30).toFixed(1) + 'Gi';
      if (n >= 2 ** 20) return +(n / 2 ** 20).toFixed(1) + 'Mi';
      return String(Math.round(n));
    }
    return String(+n.toFixed(2));
  }

  const shortResource = (r) => (r === GPU ? 'GPU' : r);

  function duration(seconds) {
    if (!(seconds >= 0)) return '—';
    const s = Math.floor(seconds);
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm' + (s % 60 ? (s % 60) + 's' : '');
    if (s < 86400) return Math.floor(s / 3600) + 'h' + (Math.floor(s / 60) % 60 ? (Math.floor(s / 60) % 60) + 'm' : '');
    return Math.floor(s / 86400) + 'd' + (Math.floor(s / 3600) % 24 ? (Math.floor(s / 3600) % 24) + 'h' : '');
  }

  const seconds = (t) => (t ? Date.parse(t) / 1000 : NaN);

  // ---- the API ----------------------------------------------------------------------
  function headers() {
    return {Authorization: 'Bearer ' + token, Accept: 'application/json'};
  }

  async function failure(resp) {
    let message = resp.status + ' ' + resp.statusText;
    try {
      const body = await resp.json();
      if (body && body.message) message = body.message;
    } catch (e) { /* not a Status */ }
    return new ApiError(resp.status, message);
  }

  async function getJson(url) {
    const resp = await fetch(url, {headers: headers(), signal: aborter.signal, cache: 'no-store'});
    if (!resp.ok) throw await failure(resp);
    return resp.json();
  }

  // Calls onEvent for each line of a watch stream until the server ends it.
  async function readEvents(resp, onEvent) {
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const {value, done} = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, {stream: true});
        let nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) onEvent(JSON.parse(line));
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  // Lists a resource, then follows its watch from the list's resourceVersion, resuming
  // where it left off after the server ends a watch and listing again after a 410.
  async function follow(res, gen) {
    let version = '';
    let delay = 500;
    const base = res.path + (res.query ? '?' + res.query + '&' : '?');
    while (gen === generation) {
      try {
        if (!version) {
          const list = await getJson(res.path + (res.query ? '?' + res.query : ''));
          if (gen !== generation) return;
          data[res.name] = new Map((list.items || []).map((o) => [keyOf(o), o]));
          version = (list.metadata && list.metadata.resourceVersion) || '';
          loaded.add(res.name);
          delete denied[res.name];
          scheduleRender();
        }
        if (!res.watch) {
          await sleep(res.everyMs);
          version = '';
          continue;
        }
        const url = base + 'watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=' +
            encodeURIComponent(version);
        const resp = await fetch(url, {headers: headers(), signal: aborter.signal, cache: 'no-store'});
        if (!resp.ok) throw await failure(resp);
        setLive(res.name, true);
        await readEvents(resp, (event) => {
          if (gen !== generation) throw new ApiError(0, 'signed out');
          if (event.type === 'ERROR') {
            const status = event.object || {};
            throw new ApiError(status.code || 500, status.message || 'watch failed');
          }
          const object = event.object;
          const v = object && object.metadata && object.metadata.resourceVersion;
          if (v) version = v;
          if (event.type === 'BOOKMARK') return;
          if (event.type === 'DELETED') data[res.name].delete(keyOf(object));
          else data[res.name].set(keyOf(object), object);
          scheduleRender();
        });
        delay = 500;
      } catch (e) {
        if (gen !== generation) return;
        setLive(res.name, false);
        if (e.status === 401) {
          signOut('The API server refused the token (401 Unauthorized).');
          return;
        }
        if (e.status === 403) {
          denied[res.name] = e.message;
          data[res.name] = new Map();
          loaded.add(res.name);
          scheduleRender();
          return;
        }
        if (e.status === 410) {
          version = '';
          continue;
        }
        await sleep(delay);
        delay = Math.min(delay * 2, 10000);
      }
    }
  }

  function setLive(name, open) {
    live[name] = open;
    const watched = RESOURCES.filter((r) => r.watch && !denied[r.name]);
    const all = watched.every((r) => live[r.name]);
    const el = $('connection');
    el.dataset.live = String(all);
    el.textContent = all ? 'live' : 'reconnecting…';
  }

  // ---- sign in and out ---------------------------------------------------------------
  function readToken() {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (match) {
      sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
      history.replaceState(null, '', location.pathname + location.search);
    }
    return sessionStorage.getItem(TOKEN_KEY) || '';
  }

  function signOut(message) {
    generation++;
    if (aborter) aborter.abort();
    sessionStorage.removeItem(TOKEN_KEY);
    token = '';
    $('main').hidden = true;
    $('sign-out').hidden = true;
    $('summary').textContent = '';
    $('connection').textContent = '';
    $('login').hidden = false;
    $('login-error').textContent = message || '';
    document.body.dataset.state = 'signed-out';
    $('token').focus();
  }

  function signIn(value) {
    generation++;
    if (aborter) aborter.abort();
    aborter = new AbortController();
    token = value;
    data = {};
    for (const r of RESOURCES) data[r.name] = new Map();
    loaded = new Set();
    denied = {};
    live = {};
    $('login').hidden = true;
    $('main').hidden = false;
    $('sign-out').hidden = false;
    document.body.dataset.state = 'loading';
    setLive('', false);
    const gen = generation;
    for (const r of RESOURCES) follow(r, gen);
  }

  async function submitLogin(event) {
    event.preventDefault();
    const value = $('token').value.trim();
    if (!value) return;
    $('login-error').textContent = '';
    // One read tells a refused token (401) from one that may read little (403: go on).
    try {
      const resp = await fetch(RESOURCES[0].path + '?limit=1', {
        headers: {Authorization: 'Bearer ' + value, Accept: 'application/json'}, cache: 'no-store'});
      if (resp.status === 401) {
        $('login-error').textContent = 'The API server refused this token (401 Unauthorized).';
        return;
      }
    } catch (e) {
      $('login-error').textContent = 'The API server cannot be reached: ' + e.message;
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, value);
    $('token').value = '';
    signIn(value);
  }

  // ---- models: what the page shows, derived from the objects --------------------------
  function nodeCapacity(node, resource) {
    const status = node.status || {};
    return quantity((status.allocatable || {})[resource] ?? (status.capacity || {})[resource]) || 0;
  }

  function nodeReady(node) {
    const ready = ((node.status || {}).conditions || []).find((c) => c.type === 'Ready');
    return !!ready && ready.status === 'True';
  }

  function clusterCapacity(resource) {
    let total = 0;
    for (const node of data.nodes.values()) total += nodeCapacity(node, resource);
    return total;
  }

  function quota(queue, resource) {
    const spec = ((queue.spec || {}).resources || {})[resource] || {};
    const status = queue.status || {};
    return {
      guaranteed: quantity(spec.guaranteed) || 0,
      limit: quantity(spec.limit),
      lendingLimit: quantity(spec.lendingLimit),
      fairShare: quantity((status.fairShare || {})[resource]) || 0,
      allocated: quantity((status.allocated || {})[resource]) || 0,
    };
  }

  // The queue tree, depth first, children by name.
  function queueTree() {
    const queues = [...data.queues.values()];
    const names = new Set(queues.map((q) => q.metadata.name));
    const children = new Map();
    const roots = [];
    for (const q of queues) {
      const parent = (q.spec || {}).parent;
      if (parent && names.has(parent)) {
        if (!children.has(parent)) children.set(parent, []);
        children.get(parent).push(q);
      } else {
        roots.push(q);
      }
    }
    const sort = (list) => list.sort((a, b) => byName(a.metadata.name, b.metadata.name));
    const order = [];
    const visit = (q, depth) => {
      order.push({queue: q, depth});
      for (const c of sort(children.get(q.metadata.name) || [])) visit(c, depth + 1);
    };
    for (const r of sort(roots)) visit(r, 0);
    return {order, children, roots};
  }

  function queueResources() {
    const set = new Set();
    for (const q of data.queues.values()) {
      for (const r of Object.keys((q.spec || {}).resources || {})) set.add(r);
      for (const r of Object.keys((q.status || {}).allocated || {})) set.add(r);
    }
    const rank = (r) => (r === GPU ? 0 : r === 'cpu' ? 1 : r === 'memory' ? 2 : 3);
    return [...set].sort((a, b) => rank(a) - rank(b) || byName(a, b));
  }

  // Who borrows from whom, per resource. Among siblings, a queue above its guarantee
  // borrows; one below it lends its idle guarantee (at most its lendingLimit). What the
  // borrowers of a family take is split over its lenders in proportion to what each has
  // idle; the rest comes from outside the family (for top-level queues: capacity no queue
  // is guaranteed). An attribution, not a record: the engine lends a pool, not a pair.
  function borrowing(tree, resource) {
    const edges = [];
    const families = [tree.roots, ...tree.children.values()];
    for (const family of families) {
      const borrowers = [];
      const lenders = [];
      for (const q of family) {
        const s = quota(q, resource);
        if (s.allocated > s.guaranteed) borrowers.push({name: q.metadata.name, want: s.allocated - s.guaranteed});
        const idle = s.guaranteed - s.allocated;
        const lendable = Math.min(idle, s.lendingLimit === null ? idle : s.lendingLimit);
        if (lendable > 0) lenders.push({name: q.metadata.name, idle: lendable});
      }
      const wanted = borrowers.reduce((a, b) => a + b.want, 0);
      const idle = lenders.reduce((a, b) => a + b.idle, 0);
      const lent = Math.min(wanted, idle);
      for (const b of borrowers) {
        const fromFamily = wanted > 0 ? lent * b.want / wanted : 0;
        for (const l of lenders) {
          const part = idle > 0 ? fromFamily * l.idle / idle : 0;
          if (part > 0) edges.push({borrower: b.name, lender: l.name, resource, amount: part});
        }
        const outside = b.want - fromFamily;
        if (outside > 1e-9) edges.push({borrower: b.name, lender: '', resource, amount: outside});
      }
    }
    return edges;
  }

  function podGpus(template) {
    let n = 0;
    for (const c of (((template || {}).spec || {}).containers || [])) {
      const res = c.resources || {};
      n += quantity((res.requests || {})[GPU] ?? (res.limits || {})[GPU]) || 0;
    }
    return n;
  }

  const FINISHED = new Set(['Succeeded', 'Failed']);

  function priorityOf(className) {
    if (!className) return 0;
    const pc = data.priorityclasses.get(className);
    return pc && typeof pc.value === 'number' ? pc.value : 0;
  }

  // Every gang a queue holds: TrainingJobs, and PodGroups of plain pods (a TrainingJob's
  // own PodGroup is the job's). Each waiting one gets its estimated place in its queue's
  // line: priority (high first), then time queued, then name, the order the engine admits
  // a queue's gangs in when nothing else (starvation, backfill, fit) intervenes.
  function jobs() {
    const list = [];
    for (const tj of data.trainingjobs.values()) {
      const spec = tj.spec || {};
      const status = tj.status || {};
      list.push({
        kind: 'TrainingJob', key: keyOf(tj), queue: spec.queue || '', phase: status.phase || '',
        pods: (status.readyReplicas || 0) + '/' + (spec.replicas ?? '?'),
        gpus: podGpus(spec.template) * (status.replicas || spec.replicas || 0),
        priorityClass: spec.priorityClassName || '', pending: status.pending,
        queuedAt: seconds(status.queuedAt || tj.metadata.creationTimestamp),
        admittedAt: seconds(status.admittedAt), suspended: !!spec.suspend,
      });
    }
    for (const pg of data.podgroups.values()) {
      const owners = pg.metadata.ownerReferences || [];
      if (owners.some((o) => o.kind === 'TrainingJob')) continue;
      const spec = pg.spec || {};
      const status = pg.status || {};
      list.push({
        kind: 'PodGroup', key: keyOf(pg), queue: spec.queue || '', phase: status.phase || '',
        pods: (status.running || 0) + '/' + (spec.minMember ?? '?'),
        gpus: quantity((spec.minResources || {})[GPU]) || 0,
        priorityClass: spec.priorityClassName || '', pending: status.pending,
        queuedAt: seconds(pg.metadata.creationTimestamp), admittedAt: NaN, suspended: false,
      });
    }
    for (const j of list) {
      j.priority = priorityOf(j.priorityClass);
      j.finished = FINISHED.has(j.phase);
      // A TrainingJob waits while Queued, a PodGroup while Pending; either before its
      // first decision.
      j.waiting = !j.finished && !j.suspended && j.phase !== 'Suspended' &&
          (j.phase === '' || j.phase === (j.kind === 'TrainingJob' ? 'Queued' : 'Pending'));
    }
    const lines = new Map();
    for (const j of list.filter((x) => x.waiting)) {
      if (!lines.has(j.queue)) lines.set(j.queue, []);
      lines.get(j.queue).push(j);
    }
    for (const line of lines.values()) {
      line.sort((a, b) => b.priority - a.priority || a.queuedAt - b.queuedAt || byName(a.key, b.key));
      line.forEach((j, i) => { j.position = i + 1; j.waitingInQueue = line.length; });
    }
    return list;
  }

  // ---- rendering ----------------------------------------------------------------------
  function scheduleRender() {
    if (renderTimer) return;
    renderTimer = setTimeout(() => {
      renderTimer = 0;
      render();
    }, RENDER_DELAY_MS);
  }

  function deniedNote(name) {
    return denied[name] ? h('p', {class: 'denied'}, 'Not shown: ' + denied[name]) : null;
  }

  function bar(resource, s, scale) {
    const pct = (v) => Math.max(0, Math.min(100, (100 * v) / scale)) + '%';
    const within = Math.min(s.allocated, s.guaranteed);
    const borrowed = Math.max(0, s.allocated - s.guaranteed);
    return h('div', {class: 'bar', title: shortResource(resource)},
        h('span', {class: 'fill fill-guaranteed', style: {left: '0', width: pct(within)}}),
        borrowed > 0 ? h('span', {class: 'fill fill-borrowed', style: {left: pct(within), width: pct(borrowed)}}) : null,
        s.guaranteed > 0 ? h('span', {class: 'mark mark-guaranteed', style: {left: pct(s.guaranteed)}}) : null,
        h('span', {class: 'mark mark-fair', style: {left: pct(s.fairShare)}}),
        s.limit !== null ? h('span', {class: 'mark mark-limit', style: {left: pct(s.limit)}}) : null);
  }

  function renderQueues(tree) {
    const resources = queueResources();
    const scale = {};
    for (const r of resources) {
      let max = clusterCapacity(r);
      for (const {queue} of tree.order) {
        const s = quota(queue, r);
        max = Math.max(max, s.guaranteed, s.fairShare, s.allocated, s.limit || 0);
      }
      scale[r] = max || 1;
    }
    const rows = tree.order.map(({queue, depth}) => {
      const status = queue.status || {};
      const valid = ((status.conditions || []).find((c) => c.type === 'Ready') || {});
      return h('div', {class: 'queue', data: {queue: queue.metadata.name, depth}},
          h('div', {class: 'queue-name', style: {paddingLeft: depth * 1.25 + 'em'}},
              h('strong', {}, queue.metadata.name),
              h('span', {class: 'counts'}, (status.pending || 0) + ' waiting · ' + (status.running || 0) + ' running'),
              valid.status === 'False' ? h('span', {class: 'invalid'}, valid.message || valid.reason) : null),
          h('div', {class: 'queue-resources'}, resources.map((r) => {
            const s = quota(queue, r);
            return h('div', {class: 'resource', data: {resource: r, allocated: s.allocated,
              guaranteed: s.guaranteed, fairShare: s.fairShare, limit: s.limit === null ? 'none' : s.limit}},
            h('span', {class: 'resource-name'}, shortResource(r)),
            bar(r, s, scale[r]),
            h('span', {class: 'numbers'},
                h('b', {}, amount(r, s.allocated)), ' allocated · ', amount(r, s.guaranteed), ' guaranteed · ',
                amount(r, s.fairShare), ' fair share · ', amount(r, s.limit), ' limit'));
          })));
    });
    $('queue-tree').replaceChildren(deniedNote('queues') ||
        (rows.length ? h('div', {}, rows) : h('p', {class: 'empty'}, 'No queues yet.')));

    const edges = resources.flatMap((r) => borrowing(tree, r));
    $('borrowing').replaceChildren(...(edges.length ? edges.map((e) =>
      h('li', {class: 'borrow', data: {borrower: e.borrower, lender: e.lender, resource: e.resource,
        amount: +e.amount.toFixed(2)}},
      h('strong', {}, e.borrower), ' borrows ' + amount(e.resource, e.amount) + ' ' + shortResource(e.resource) + ' ',
      e.lender ? ['from ', h('strong', {}, e.lender), ' (its idle guarantee)'] :
        'from capacity its parent holds beyond its siblings\' guarantees')) :
      [h('li', {class: 'empty'}, 'No queue is above its guarantee.')]));
  }

  function pendingCell(job) {
    const p = job.pending;
    if (!p || !job.waiting) return h('td', {class: 'why'});
    const dominant = Object.keys(p.allocated || p.guaranteed || {})[0] || GPU;
    const pick = (m) => quantity((m || {})[dominant]);
    const numbers = [
      ['request', pick(p.request)], ['allocated', pick(p.allocated)], ['guaranteed', pick(p.guaranteed)],
      ['fair share', pick(p.fairShare)], ['limit', pick(p.limit)]];
    return h('td', {class: 'why'},
        h('div', {}, h('strong', {class: 'reason'}, p.reason || '')),
        h('div', {class: 'message'}, (p.message || '').replace(/^[A-Za-z]+: /, '')),
        h('div', {class: 'pending-numbers', data: {resource: dominant}},
            numbers.filter(([label, v]) => v !== null || label === 'limit').map(([label, v]) =>
              h('span', {data: {number: label}}, label + ' ' + amount(dominant, v))),
            ' ' + shortResource(dominant)));
  }

  function jobRow(j, now) {
    const wait = j.waiting ? now - j.queuedAt : j.admittedAt - j.queuedAt;
    return h('tr', {data: {job: j.key, kind: j.kind, queue: j.queue, phase: j.phase || 'New',
      position: j.position, reason: j.waiting && j.pending ? j.pending.reason : undefined}},
    h('td', {class: 'job-name'}, j.key, j.kind === 'PodGroup' ? h('span', {class: 'kind'}, ' PodGroup') : null),
    h('td', {}, h('span', {class: 'phase phase-' + (j.phase || 'New')}, j.phase || 'New')),
    h('td', {class: 'num'}, j.pods),
    h('td', {class: 'num'}, amount(GPU, j.gpus)),
    h('td', {}, j.priorityClass ? j.priorityClass + ' (' + j.priority + ')' : String(j.priority)),
    h('td', {class: 'num'}, j.waiting ? duration(wait) : Number.isNaN(wait) ? '—' : 'waited ' + duration(wait)),
    h('td', {class: 'num'}, j.waiting ? j.position + ' of ' + j.waitingInQueue : ''),
    pendingCell(j));
  }

  function renderJobs(tree) {
    const now = Date.now() / 1000;
    const all = jobs();
    const order = (j) => (j.waiting ? 0 : j.finished ? 2 : 1);
    const queueNames = [...tree.order.map((x) => x.queue.metadata.name)];
    for (const j of all) if (!queueNames.includes(j.queue)) queueNames.push(j.queue);
    const sections = [];
    for (const name of queueNames) {
      const mine = all.filter((j) => j.queue === name).sort((a, b) =>
        order(a) - order(b) || (a.position || 0) - (b.position || 0) ||
        (a.waiting ? 0 : a.admittedAt - b.admittedAt) || byName(a.key, b.key));
      if (!mine.length) continue;
      const active = mine.filter((j) => !j.finished);
      const finished = mine.filter((j) => j.finished);
      const head = h('tr', {}, ['Job', 'Phase', 'Pods', 'GPUs', 'Priority', 'Wait', 'Position', 'Why pending']
          .map((t) => h('th', {}, t)));
      sections.push(h('div', {class: 'job-queue', data: {queue: name}},
          h('h3', {}, 'Queue ' + (name || '(none)'), data.queues.has(name) || !name ? null : h('span', {class: 'invalid'}, ' no such queue')),
          h('table', {class: 'jobs'}, h('thead', {}, head), h('tbody', {}, active.map((j) => jobRow(j, now)))),
          finished.length ? h('details', {class: 'finished'}, h('summary', {}, finished.length + ' finished'),
              h('table', {class: 'jobs'}, h('tbody', {}, finished.map((j) => jobRow(j, now))))) : null));
    }
    $('job-list').replaceChildren(deniedNote('trainingjobs') || '',
        ...(sections.length ? sections : [h('p', {class: 'empty'}, 'No jobs yet.')]));
  }

  // A colour for each job on the map: hues a golden angle apart in the order of the jobs'
  // names, so that neighbours in that order never look alike.
  function jobColours(jobs) {
    const colours = new Map();
    [...jobs].sort(byName).forEach((job, i) => colours.set(job, 'hsl(' + ((i * 137.508) % 360).toFixed(1) + ' 62% 52%)'));
    return colours;
  }

  // Which jobs hold each GPU: the troupe.dev/gpu-indices annotation Troupe writes on a pod
  // it binds, for pods not yet finished. Pods asking a fraction of one GPU
  // (troupe.dev/gpu-fraction) share an index, each with its share.
  function gpuHolders() {
    const holders = new Map();  // node -> Map(index -> [{job, pod, share}])
    for (const pod of data.pods.values()) {
      const node = (pod.spec || {}).nodeName;
      const phase = (pod.status || {}).phase;
      const indices = (pod.metadata.annotations || {})['troupe.dev/gpu-indices'];
      if (!node || !indices || FINISHED.has(phase)) continue;
      const labels = pod.metadata.labels || {};
      const ns = pod.metadata.namespace;
      const job = labels['troupe.dev/job-name'] ? ns + '/' + labels['troupe.dev/job-name'] :
        labels['troupe.dev/pod-group'] ? ns + '/' + labels['troupe.dev/pod-group'] : ns + '/' + pod.metadata.name;
      const share = Number((pod.metadata.annotations || {})['troupe.dev/gpu-fraction']) || 0;
      if (!holders.has(node)) holders.set(node, new Map());
      const cells = holders.get(node);
      for (const i of indices.split(',')) {
        if (i.trim() === '') continue;
        if (!cells.has(Number(i))) cells.set(Number(i), []);
        cells.get(Number(i)).push({job, pod: pod.metadata.name, share});
      }
    }
    // The pods sharing a GPU in a total order, whatever order the watches brought them in.
    for (const cells of holders.values())
      for (const list of cells.values()) list.sort((a, b) => byName(a.job, b.job) || byName(a.pod, b.pod));
    return holders;
  }

  // A shared GPU drawn as bands from the bottom, one per pod in its job's colour and as tall
  // as its share, the part no pod holds left in the free colour.
  function shareBands(list, milli, colour) {
    const stops = [];
    let at = 0;
    for (const x of list) {
      const to = at + milli(x) / 10;
      stops.push(colour.get(x.job) + ' ' + at + '% ' + to + '%');
      at = to;
    }
    stops.push('var(--free) ' + at + '% 100%');
    return 'linear-gradient(to top, ' + stops.join(', ') + ')';
  }

  function renderGpus() {
    const holders = gpuHolders();
    const holding = new Set();
    for (const cells of holders.values())
      for (const list of cells.values()) for (const h of list) holding.add(h.job);
    const colour = jobColours(holding);
    const nodes = [...data.nodes.values()].map((n) => {
      const labels = n.metadata.labels || {};
      return {node: n, name: n.metadata.name, block: labels['troupe.dev/block'] || '',
        rack: labels['troupe.dev/rack'] || '', gpus: nodeCapacity(n, GPU)};
    }).filter((n) => n.gpus > 0);
    nodes.sort((a, b) => byName(a.block, b.block) || byName(a.rack, b.rack) || byName(a.name, b.name));
    const racks = new Map();
    for (const n of nodes) {
      const key = n.block + '\u0000' + n.rack;
      if (!racks.has(key)) racks.set(key, {block: n.block, rack: n.rack, nodes: []});
      racks.get(key).nodes.push(n);
    }
    const held = new Map();  // job -> GPUs
    const rackEls = [...racks.values()].map((r) => h('div', {class: 'rack', data: {rack: r.rack, block: r.block}},
        h('h3', {}, (r.rack || 'no rack label') + (r.block ? ' · ' + r.block : '')),
        r.nodes.map((n) => {
          const mine = holders.get(n.name) || new Map();
          const cells = [];
          let used = 0;
          for (let i = 0; i < n.gpus; i++) {
            const list = mine.get(i) || [];
            const holder = list[0];
            const shared = list.some((x) => x.share > 0);
            if (holder) used++;
            // In thousandths, so that shares add up exactly (0.3 x 3 is 0.9).
            const milli = (x) => Math.round((x.share || 1) * 1000);
            for (const x of list) held.set(x.job, (held.get(x.job) || 0) + milli(x));
            const who = list.map((x) => x.job + ' (pod ' + x.pod + (x.share ? ', ' + x.share + ' of it' : '') + ')');
            const taken = list.reduce((a, x) => a + milli(x), 0);
            cells.push(h('span', {class: holder ? (shared ? 'gpu held shared' : 'gpu held') : 'gpu',
              data: {gpu: i, job: holder ? holder.job : undefined, pod: holder ? holder.pod : undefined,
                share: shared ? String(taken / 1000) : undefined,
                holders: shared ? String(list.length) : undefined},
              title: 'GPU ' + i + (holder ? ': ' + who.join('; ') + (shared ? '; ' + (1000 - taken) / 1000 + ' free' : '') : ': free'),
              style: holder ? {background: shared ? shareBands(list, milli, colour) : colour.get(holder.job)} : undefined},
              String(i)));
          }
          const ready = nodeReady(n.node);
          return h('div', {class: ready ? 'node' : 'node not-ready', data: {node: n.name, ready, used}},
              h('div', {class: 'node-name'}, n.name, h('span', {class: 'node-use'}, used + '/' + n.gpus + (ready ? '' : ' NotReady'))),
              h('div', {class: 'gpus'}, cells));
        })));
    $('gpu-map').replaceChildren(deniedNote('nodes') || deniedNote('pods') || '',
        ...(rackEls.length ? rackEls : [h('p', {class: 'empty'}, 'No nodes with GPUs.')]));
    const legend = [...held.entries()].map(([job, milli]) => [job, milli / 1000]).sort((a, b) => byName(a[0], b[0]));
    $('gpu-legend').replaceChildren(...legend.map(([job, n]) => h('li', {data: {job, gpus: n}},
        h('span', {class: 'swatch', style: {background: colour.get(job)}}), job + ' · ' + n + ' GPU' + (n === 1 ? '' : 's'))));
    return {total: nodes.reduce((a, n) => a + n.gpus, 0), used: [...held.values()].reduce((a, b) => a + b, 0) / 1000};
  }

  function render() {
    if ($('main').hidden) return;
    const tree = queueTree();
    renderQueues(tree);
    renderJobs(tree);
    const gpus = renderGpus();
    const all = jobs();
    const running = all.filter((j) => j.phase === 'Running').length;
    const waiting = all.filter((j) => j.waiting).length;
    $('summary').textContent = data.nodes.size + ' nodes · ' + gpus.used + ' of ' + gpus.total +
        ' GPUs held · ' + running + ' running · ' + waiting + ' waiting';
    renders++;
    document.body.dataset.renders = String(renders);
    if (RESOURCES.every((r) => loaded.has(r.name))) document.body.dataset.state = 'live';
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('login-form').addEventListener('submit', submitLogin);
    $('sign-out').addEventListener('click', () => signOut(''));
    // Wait times move with the clock, not only with events.
    setInterval(() => { if (!$('main').hidden) scheduleRender(); }, 5000);
    const saved = readToken();
    if (saved) signIn(saved);
    else signOut('');
  });
})();
