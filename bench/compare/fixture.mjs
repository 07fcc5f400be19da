// The search fixture (test/fixtures/search: history.json, an export document, and questions.json,
// each question naming the observation ids that answer it), loaded into either product through its
// own import route. Observations are matched across products by title + creation time, which is
// what claude-mem itself dedupes imports on.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const keyOf = (title, epoch) => `${title}\u0000${epoch}`;

export function loadSearchFixture(ROOT) {
  const dir = path.join(ROOT, 'test', 'fixtures', 'search');
  const hPath = path.join(dir, 'history.json');
  const qPath = path.join(dir, 'questions.json');
  if (!fs.existsSync(hPath) || !fs.existsSync(qPath)) return { ok: false, reason: `${path.relative(ROOT, dir)}/history.json or questions.json not there yet` };
  let history;
  let questionsRaw;
  try {
    history = JSON.parse(fs.readFileSync(hPath, 'utf8'));
    questionsRaw = JSON.parse(fs.readFileSync(qPath, 'utf8'));
  } catch (e) {
    return { ok: false, reason: `fixture does not parse: ${e.message}` };
  }
  if (!Array.isArray(history.sessions) || !Array.isArray(questionsRaw)) return { ok: false, reason: 'fixture has an unexpected shape (sessions[] / questions[])' };
  const observations = history.sessions.flatMap((s) => (s.observations ?? []).map((o) => ({ ...o, project: s.project })));
  const byId = new Map(observations.map((o) => [o.id, o]));
  const questions = [];
  for (const q of questionsRaw) {
    const targets = (q.answers ?? []).map((id) => byId.get(id));
    if (!q.question || targets.length === 0 || targets.some((t) => !t)) continue;
    questions.push({ id: q.id, question: q.question, project: q.project, answerTitles: targets.map((t) => keyOf(t.title, t.createdAt)) });
  }
  if (!questions.length) return { ok: false, reason: 'no fixture question resolves to a fixture observation' };

  const toClaudeMem = () => toClaudeMemDoc(history.sessions);

  return {
    ok: true,
    observations,
    questions,
    /** Imports into a running worker; resolves the keys (title + time) of what it stored. */
    async importInto(side, inst) {
      const doc = side.name === 'theirs' ? toClaudeMem() : history;
      const r = await side.importExport(inst, doc);
      if (r.status !== 200) return { ok: false, error: `${r.status} ${JSON.stringify(r.body).slice(0, 300)}` };
      // What is there now: every fixture observation's key, checked by listing the store.
      const titles = await side.listKeys(inst);
      return { ok: true, titles };
    },
  };
}

/** Sessions of our export document in claude-mem's /api/import shape (its export format: snake_case rows, JSON-encoded arrays). */
export function toClaudeMemDoc(ourSessions) {
  const iso = (ms) => new Date(ms).toISOString();
  const sessions = [];
  const obs = [];
  const summaries = [];
  const prompts = [];
  for (const s of ourSessions) {
    const memoryId = `fixture-memory-${s.contentSessionId}`;
    sessions.push({
      content_session_id: s.contentSessionId,
      memory_session_id: memoryId,
      project: s.project,
      platform_source: 'claude',
      user_prompt: s.prompts?.[0]?.text ?? null,
      started_at: iso(s.startedAt),
      started_at_epoch: s.startedAt,
      completed_at: s.completedAt ? iso(s.completedAt) : null,
      completed_at_epoch: s.completedAt ?? null,
      status: 'completed',
    });
    for (const p of s.prompts ?? []) prompts.push({ content_session_id: s.contentSessionId, platform_source: 'claude', prompt_number: p.promptNumber, prompt_text: p.text, created_at: iso(p.createdAt), created_at_epoch: p.createdAt });
    for (const o of s.observations ?? []) {
      obs.push({
        memory_session_id: memoryId,
        project: s.project,
        text: null,
        type: o.type,
        title: o.title,
        subtitle: o.subtitle ?? null,
        facts: JSON.stringify(o.facts ?? []),
        narrative: o.narrative ?? null,
        concepts: JSON.stringify(o.concepts ?? []),
        files_read: JSON.stringify(o.filesRead ?? []),
        files_modified: JSON.stringify(o.filesModified ?? []),
        prompt_number: o.promptNumber ?? 1,
        discovery_tokens: o.discoveryTokens ?? 0,
        created_at: iso(o.createdAt),
        created_at_epoch: o.createdAt,
      });
    }
    for (const m of s.summaries ?? []) {
      summaries.push({
        memory_session_id: memoryId,
        project: s.project,
        request: m.request ?? null,
        investigated: m.investigated ?? null,
        learned: m.learned ?? null,
        completed: m.completed ?? null,
        next_steps: m.nextSteps ?? null,
        files_read: null,
        files_edited: null,
        notes: m.notes ?? null,
        prompt_number: m.promptNumber ?? 1,
        discovery_tokens: 0,
        created_at: iso(m.createdAt),
        created_at_epoch: m.createdAt,
      });
    }
  }
  return { sessions, observations: obs, summaries, prompts };
}
