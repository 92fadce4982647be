// BullMQ against a Redis-protocol server: node bullmq_scenario.js PORT PREFIX [SCENARIO...]
// Prints one JSON line (the last line of stdout): {scenario: result-or-{error}} for each
// scenario run. Every wait is bounded (WAIT_MS); nothing here loops without a limit.
"use strict";
const { Queue, Worker, QueueEvents, FlowProducer, Job } = require("bullmq");

const port = Number(process.argv[2]);
const prefix = process.argv[3];
const only = process.argv.slice(4);
const connection = { host: "127.0.0.1", port, maxRetriesPerRequest: null };
const WAIT_MS = 8000;

function bounded(promise, what) {
  let t;
  const timeout = new Promise((_, rej) => {
    t = setTimeout(() => rej(new Error("timeout waiting for " + what)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(t));
}

// Resolves once pred() is true after an event; pred is checked on each emit of ev.
function until(emitter, ev, pred, what) {
  return bounded(new Promise((res) => {
    const h = (...a) => { if (pred(...a)) { emitter.off(ev, h); res(); } };
    emitter.on(ev, h);
  }), what);
}

let stage = "";  // the step a scenario is at, reported with its error
const closers = [];
function track(x) { closers.push(x); return x; }
async function closeAll() {
  while (closers.length) {
    const c = closers.pop();
    try { await bounded(c.close(), "close"); } catch (e) { /* reported by the scenario */ }
  }
}

const COUNTS = ["waiting", "active", "completed", "failed", "delayed", "prioritized"];

// 1. N jobs, Worker concurrency 4, return values, counts, QueueEvents 'completed' for each.
async function basic() {
  const N = 12;
  const q = track(new Queue("basic", { connection, prefix }));
  const qe = track(new QueueEvents("basic", { connection, prefix, lastEventId: "0-0" }));
  await qe.waitUntilReady();
  const seen = {};
  const allSeen = until(qe, "completed", ({ jobId, returnvalue }) => {
    seen[jobId] = returnvalue;
    return Object.keys(seen).length === N;
  }, "QueueEvents completed");
  const added = [];
  for (let i = 1; i <= N; i++) added.push((await q.add("sum", { a: i, b: 100 })).id);
  let maxActive = 0, active = 0;
  const w = track(new Worker("basic", async (job) => {
    active++; maxActive = Math.max(maxActive, active);
    await new Promise((r) => setTimeout(r, 20));
    active--;
    return { sum: job.data.a + job.data.b, name: job.name };
  }, { connection, prefix, concurrency: 4 }));
  await allSeen;
  const job5 = await Job.fromId(q, "5");
  const out = {
    added,
    events: Object.keys(seen).sort((x, y) => x - y).map((id) => [id, seen[id]]),
    job5: { returnvalue: job5.returnvalue, state: await job5.getState(), finished: job5.finishedOn > 0 },
    counts: await q.getJobCounts(...COUNTS),
    concurrent: maxActive > 1,
  };
  await w.close();
  return out;
}

// 2. attempts: 3 with fixed backoff: retried, then failed with the error message.
async function retry() {
  const q = track(new Queue("retry", { connection, prefix }));
  const attempts = [];
  const w = track(new Worker("retry", async (job) => {
    attempts.push(job.attemptsMade);
    throw new Error("boom on try " + (job.attemptsMade + 1));
  }, { connection, prefix, autorun: false }));
  const failedEvents = [];
  const done = until(w, "failed", (job, err) => {
    failedEvents.push(err.message);
    return failedEvents.length === 3;
  }, "3 failed events");
  const j = await q.add("flaky", { x: 1 }, { attempts: 3, backoff: { type: "fixed", delay: 100 } });
  w.run();
  await done;
  const job = await Job.fromId(q, j.id);
  const out = {
    id: j.id, attempts, failedEvents,
    state: await job.getState(), failedReason: job.failedReason, attemptsMade: job.attemptsMade,
    stacktraceLen: job.stacktrace.length,
    counts: await q.getJobCounts(...COUNTS),
  };
  await w.close();
  return out;
}

// 3. A delayed job runs after its delay, not before; prioritized jobs in priority order.
async function delayPriority() {
  const q = track(new Queue("delay", { connection, prefix }));
  const ran = {};
  const w = track(new Worker("delay", async (job) => {
    ran[job.name] = Date.now();
    return job.name;
  }, { connection, prefix }));
  await w.waitUntilReady();
  const done = until(w, "completed", (job) => job.name === "later", "delayed job");
  const t0 = Date.now();
  const j = await q.add("later", {}, { delay: 300 });
  const stateBefore = await j.getState();
  await done;
  const waited = ran.later - t0;
  await w.close();

  const pq = track(new Queue("prio", { connection, prefix }));
  const order = [];
  for (const p of [5, 1, 4, 2, 3]) await pq.add("p" + p, {}, { priority: p });
  const countsBefore = await pq.getJobCounts(...COUNTS);
  const pw = track(new Worker("prio", async (job) => { order.push(job.name); }, {
    connection, prefix, concurrency: 1, autorun: false }));
  const pdone = until(pw, "completed", () => order.length === 5, "5 priority jobs");
  pw.run();
  await pdone;
  const out = {
    stateBefore, notBefore: waited >= 300, withinBound: waited < 3000,
    state: await j.getState(), countsBefore, order,
  };
  await pw.close();
  return out;
}

// 4. updateProgress, job.log, removeOnComplete; a FlowProducer parent with two children.
async function progressFlow() {
  const q = track(new Queue("prog", { connection, prefix }));
  const qe = track(new QueueEvents("prog", { connection, prefix, lastEventId: "0-0" }));
  await qe.waitUntilReady();
  const progress = [];
  qe.on("progress", ({ jobId, data }) => progress.push([jobId, data]));
  const qeCompleted = [];
  const qeDone = until(qe, "completed", ({ jobId }) => {
    qeCompleted.push(jobId);
    return qeCompleted.length === 2;
  }, "QueueEvents completed x2");
  const w = track(new Worker("prog", async (job) => {
    await job.updateProgress(50);
    await job.log("half way");
    await job.updateProgress({ step: 2, of: 2 });
    await job.log("done");
    return "ok " + job.name;
  }, { connection, prefix, autorun: false }));
  const done = until(w, "completed", (job) => job.name === "gone", "two prog jobs");
  stage = "progress";
  const kept = await q.add("kept", {});
  const gone = await q.add("gone", {}, { removeOnComplete: true });
  w.run();
  await done;
  stage = "progress: QueueEvents";
  await qeDone;
  const keptJob = await Job.fromId(q, kept.id);
  const out = {
    kept: { progress: keptJob.progress, returnvalue: keptJob.returnvalue,
            logs: await q.getJobLogs(kept.id) },
    goneExists: (await Job.fromId(q, gone.id)) !== undefined,
    goneLogs: await q.getJobLogs(gone.id),
    progressEvents: progress, qeCompleted,
    counts: await q.getJobCounts(...COUNTS),
  };
  await w.close();

  stage = "flow";
  const fp = track(new FlowProducer({ connection, prefix }));
  const cw = track(new Worker("child", async (job) => job.data.n * 10, { connection, prefix }));
  const pw = track(new Worker("parent", async (job) => {
    const vals = await job.getChildrenValues();
    return Object.values(vals).reduce((a, b) => a + b, 0);
  }, { connection, prefix }));
  const pdone = until(pw, "completed", () => true, "flow parent");
  const tree = await fp.add({
    name: "total", queueName: "parent", data: {},
    children: [
      { name: "c1", queueName: "child", data: { n: 1 } },
      { name: "c2", queueName: "child", data: { n: 2 } },
    ],
  });
  const parentStateBefore = await tree.job.getState();
  stage = "flow: parent completed";
  await pdone;
  const parentQ = track(new Queue("parent", { connection, prefix }));
  const pj = await Job.fromId(parentQ, tree.job.id);
  out.flow = {
    parentStateBefore, children: tree.children.length,
    parentState: await pj.getState(), parentValue: pj.returnvalue,
    childValues: Object.values(await pj.getChildrenValues()).sort(),
  };
  await cw.close();
  await pw.close();
  return out;
}

const scenarios = { basic, retry, delayPriority, progressFlow };

(async () => {
  const result = {};
  for (const [name, fn] of Object.entries(scenarios)) {
    if (only.length && !only.includes(name)) continue;
    stage = "";
    try {
      result[name] = await bounded(fn(), name);
    } catch (e) {
      result[name] = { error: e.message, stage };
    }
    await closeAll();
  }
  console.log(JSON.stringify(result));
  process.exit(0);
})().catch((e) => { console.log(JSON.stringify({ fatal: String(e) })); process.exit(1); });
