/**
 * The paths of a funnel report (docs/api.md "Funnels"): from a session's steps in time
 * order, the tree of video → choice → video that sessions took from the entry video,
 * and each node's figures from its sessions' per-session facts. Pure: the service reads
 * the rows (repo.ts) and names the videos and choices.
 */

/** A step taken (`funnel_steps`, 0014_funnel_steps.sql): on `video_id`, `choice` led to `next`. */
export interface StepRow {
  video_id: number;
  session_hash: string;
  choice: string;
  /** The next video's id, undefined when its code names no video of the workspace. */
  next: number | undefined;
}

/** A node: the sessions that reached `video_id` by this path. */
export interface PathNode {
  id: number;
  parent: number | null;
  depth: number;
  /** The choice taken on the parent's video (`quiz:<question>:<choice>` or `cta:<card>`); null at the entry. */
  choice: string | null;
  video_id: number;
  sessions: Set<string>;
}

/** What a session did on one video (`analytics_session_slots`, merged). */
export interface SessionFacts {
  played: boolean;
  completed: boolean;
  lead: boolean;
  /** The device's hash, "0" without one (the session is then its own viewer). */
  device: string;
}

export interface Figures {
  sessions: number;
  viewers: number;
  plays: number;
  completions: number;
  leads: number;
}

/** How many steps deep a report follows a path (a loop A → B → A stops there too). */
export const MAX_DEPTH = 5;

interface Building extends Omit<PathNode, "id" | "parent"> {
  children: Map<string, Building>;
}

/**
 * The tree, depth first, children by sessions (most first, then by choice): the entry
 * first, with every session in `entrySessions`. Steps must come grouped by session and
 * in time order within it. A session walks from the entry: a step on the video it is on
 * moves it on; a step on the entry video (it started over) starts it from the entry
 * again; any other step, one to an unknown video or one past `maxDepth` is passed over.
 *
 * @example
 *   buildPaths(1, new Set(["s"]), [{ video_id: 1, session_hash: "s", choice: "quiz:q:a", next: 2 }]);
 *   // [{ id: 0, parent: null, depth: 0, choice: null, video_id: 1, ... }, { id: 1, parent: 0, depth: 1, choice: "quiz:q:a", video_id: 2, ... }]
 */
export function buildPaths(entry: number, entrySessions: Set<string>, steps: StepRow[], maxDepth = MAX_DEPTH): PathNode[] {
  const root: Building = { depth: 0, choice: null, video_id: entry, sessions: new Set(entrySessions), children: new Map() };
  let session = "";
  let at = root;
  for (const step of steps) {
    if (step.session_hash !== session) {
      session = step.session_hash;
      at = root;
    }
    if (step.video_id !== at.video_id) {
      if (step.video_id !== entry) continue;
      at = root;
    }
    if (step.next === undefined || at.depth >= maxDepth) continue;
    const key = `${step.choice}>${step.next}`;
    let child = at.children.get(key);
    if (!child) at.children.set(key, (child = { depth: at.depth + 1, choice: step.choice, video_id: step.next, sessions: new Set(), children: new Map() }));
    child.sessions.add(session);
    at = child;
  }
  const out: PathNode[] = [];
  const walk = (node: Building, parent: number | null) => {
    const id = out.length;
    out.push({ id, parent, depth: node.depth, choice: node.choice, video_id: node.video_id, sessions: node.sessions });
    const children = [...node.children.values()].sort((a, b) => b.sessions.size - a.sessions.size || String(a.choice).localeCompare(String(b.choice)));
    for (const child of children) walk(child, id);
  };
  walk(root, null);
  return out;
}

/** A node's figures over its sessions' facts on its video (`facts` keyed `<video id>:<session hash>`); a session without facts is one viewer. */
export function figuresOf(node: PathNode, facts: Map<string, SessionFacts>): Figures {
  const viewers = new Set<string>();
  const f: Figures = { sessions: node.sessions.size, viewers: 0, plays: 0, completions: 0, leads: 0 };
  for (const s of node.sessions) {
    const x = facts.get(`${node.video_id}:${s}`);
    viewers.add(x && x.device !== "0" ? `d${x.device}` : `s${s}`);
    if (!x) continue;
    if (x.played) f.plays++;
    if (x.completed) f.completions++;
    if (x.lead) f.leads++;
  }
  f.viewers = viewers.size;
  return f;
}
