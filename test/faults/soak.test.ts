// Concurrency over time: SSE clients that connect and vanish, beside a steady load of writes,
// for ten minutes; the worker leaks neither memory nor file descriptors. Paced, it mostly waits:
// test/run.mjs runs it beside the other files without taking one of their places.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { it } from 'node:test';
import { startWorker } from '../helpers/worker';
import { faultCase } from './record';

const F = __filename;
const SOAK_SECONDS = Number(process.env.FAULT_SOAK_SECONDS ?? 600);

/**
 * The soak's pace: save+delete rounds and SSE clients per second, on a fixed schedule (each starts
 * at its slot, not as soon as the one before ended), so the soak keeps its ten minutes of wall time
 * and a known number of rounds while using a sixth of a core (the whole file: 107 CPU s over 622 s
 * on a machine at load average 20; unpaced, the soak took about half a core). Over 600 s that is
 * 2,400 rounds and 6,000 clients: a leak of 34 KB a round or 14 KB a client crosses the
 * 40 MB RSS bar between the halves, and a descriptor leaked by each client crosses the fd bar
 * within 30 clients.
 */
const SOAK_ROUNDS_PER_S = 4;
const SOAK_CLIENTS_PER_S = 10;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14 and 15) in clock ticks
}

it(`SSE clients that connect and vanish leak nothing over a ${SOAK_SECONDS} s soak`, { timeout: (SOAK_SECONDS + 120) * 1000 }, async () => {
  await faultCase(F, 'concurrency', `SSE churn soak ${SOAK_SECONDS} s`, async () => {
    const w = await startWorker();
    const pid = w.proc.pid as number;
    const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    const fds = () => fs.readdirSync(`/proc/${pid}/fd`).length;
    const samples: { t: number; rss: number; fds: number }[] = [];
    const start = Date.now();
    const end = start + SOAK_SECONDS * 1000;
    /** Waits for the k-th slot of a schedule of `perSecond` slots a second; false once the soak is over. */
    const slot = async (k: number, perSecond: number) => {
      const at = start + (k * 1000) / perSecond;
      if (at >= end) return false;
      await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
      return true;
    };
    const workerCpu0 = cpuSeconds(pid);
    const ownCpu0 = process.cpuUsage();
    let n = 0;
    let connected = 0;
    // Steady load that exercises writes and events but does not grow the database (which would
    // grow RSS legitimately): save a memory and delete it, repeat a duplicate tool use, read a page.
    await w.req('POST', '/api/sessions/observations', { contentSessionId: 'soak', project: 'soak', tool_name: 'Read', tool_input: { file_path: 'same.ts' }, tool_response: 'x' });
    const load = (async () => {
      // A round that runs late (a loaded machine) starts the next one at once, until it catches up.
      for (let k = 0; await slot(k, SOAK_ROUNDS_PER_S); k++) {
        const saved = await w.req('POST', '/api/memory/save', { text: `soak memory ${n++}`, project: 'soak' });
        await w.req('DELETE', `/api/observation/${saved.body.id}`);
        await w.req('POST', '/api/sessions/observations', { contentSessionId: 'soak', project: 'soak', tool_name: 'Read', tool_input: { file_path: 'same.ts' }, tool_response: 'x' });
        await w.req('GET', '/api/observations?project=soak&limit=20');
      }
    })();
    const churn = (async () => {
      for (let k = 0; await slot(k, SOAK_CLIENTS_PER_S); k++) {
        // A client connects, reads a little, and vanishes without closing cleanly.
        const req = http.get({ host: '127.0.0.1', port: w.port, path: '/stream', headers: { authorization: `Bearer ${w.token}` } }, (res) => {
          connected += 1;
          res.once('data', () => setTimeout(() => req.destroy(), Math.random() * 300));
        });
        req.on('error', () => undefined);
      }
    })();
    const sampler = (async () => {
      while (Date.now() < end) {
        await new Promise((r) => setTimeout(r, Math.min(10_000, (SOAK_SECONDS * 1000) / 12)));
        samples.push({ t: Math.round((SOAK_SECONDS * 1000 - (end - Date.now())) / 1000), rss: rssMb(), fds: fds() });
      }
    })();
    await Promise.all([load, churn, sampler]);
    await new Promise((r) => setTimeout(r, 1500)); // let the last vanished streams be noticed
    const finalFds = fds();
    const workerCpu = cpuSeconds(pid) - workerCpu0;
    const own = process.cpuUsage(ownCpu0);
    const firstHalf = samples.slice(1, Math.ceil(samples.length / 2));
    const lastHalf = samples.slice(Math.ceil(samples.length / 2));
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const rssGrowth = avg(lastHalf.map((s) => s.rss)) - avg(firstHalf.map((s) => s.rss));
    const stats = await w.req('GET', '/api/stats');
    await w.stop();
    // The schedule's rounds and clients, within what a loaded machine may drop at the end.
    assert.ok(n >= 0.9 * SOAK_ROUNDS_PER_S * SOAK_SECONDS, `${n} save+delete rounds of the ${SOAK_ROUNDS_PER_S * SOAK_SECONDS} scheduled`);
    assert.ok(connected >= 0.9 * SOAK_CLIENTS_PER_S * SOAK_SECONDS, `${connected} SSE clients connected of the ${SOAK_CLIENTS_PER_S * SOAK_SECONDS} scheduled`);
    assert.ok(finalFds < 60, `file descriptors at the end: ${finalFds}`);
    assert.ok(rssGrowth < 40, `RSS grew ${rssGrowth.toFixed(1)} MB between the halves`);
    return `${connected} SSE clients came and went, ${n} save+delete rounds (${stats.body.observations} observations left); CPU: worker ${workerCpu.toFixed(1)} s, clients ${((own.user + own.system) / 1e6).toFixed(1)} s; RSS MB ${samples.map((s) => s.rss.toFixed(0)).join('→')} (second-half growth ${rssGrowth.toFixed(1)} MB); fds ${samples.map((s) => s.fds).join('→')} → ${finalFds} at the end`;
  });
});
