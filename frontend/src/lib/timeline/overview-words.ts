// What an overview row or part says when asked (the tooltip).
import type { CallStatus, MarkerKind } from './overview-facts';
import { MARKER_RANK } from './overview-facts';
import type { CallBar, GapBar, MarkerBar, OverviewRow, Segment, SegmentKind, SubAgentBar } from './overview-layout';
import { formatCount, formatDuration } from './metrics';
const PART_NAMES: Record<SegmentKind, string> = {
  load: 'load',
  prompt: 'prompt eval',
  eval: 'generation',
  other: 'other',
  tools: 'tools',
  wait: 'waiting',
};

const MARKER_NAMES: Record<MarkerKind, [string, string]> = {
  error: ['error', 'errors'],
  denied: ['denial', 'denials'],
  tool_error: ['failed call', 'failed calls'],
  retry: ['retry', 'retries'],
  notice: ['notice', 'notices'],
  edit: ['edit', 'edits'],
};

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** The numbers of a row, a line each: the model's time, the tokens, the tools, the waits, the markers. */
export function describeRow(r: OverviewRow): string[] {
  const lines = [r.label];
  if (r.modelMs == null) lines.push('Model: no answer yet');
  else {
    const parts = r.segments.filter((s) => s.kind !== 'tools' && s.kind !== 'wait').map((s) => `${PART_NAMES[s.kind]} ${formatDuration(s.ms)}`);
    lines.push(`Model ${formatDuration(r.modelMs)}${r.bucket ? ' in all' : ''}: ${parts.join(' · ')}`);
  }
  const prompt = r.promptTokens == null ? 'unknown' : formatCount(r.promptTokens);
  const output = r.outputTokens == null ? 'unknown' : formatCount(r.outputTokens);
  lines.push(`Tokens: prompt ${prompt}${r.bucket ? ' at most' : ''} · output ${output}${r.bucket ? ' in all' : ''}`);
  if (r.calls_n > 0) lines.push(`Tools: ${plural(r.calls_n, 'call', 'calls')}, ${formatDuration(r.toolMs)}`);
  if (r.subs_n > 0) lines.push(r.subs.length ? r.subs.map(subLine).join('; ') : plural(r.subs_n, 'sub-agent', 'sub-agents'));
  if (r.waitMs > 0) lines.push(`Waiting for you: ${formatDuration(r.waitMs)}`);
  const marks = (Object.keys(MARKER_RANK) as MarkerKind[]).filter((k) => r.counts[k]).map((k) => plural(r.counts[k]!, ...MARKER_NAMES[k]));
  if (marks.length) lines.push(marks.join(', '));
  return lines;
}

const CALL_STATUS: Record<CallStatus, string> = {
  ok: 'ok',
  error: 'failed',
  denied: 'denied',
  invalid: 'called wrong',
  running: 'running',
  waiting: 'not started',
};

/** The first line of a sub-agent's goal, cut to about 60 characters. */
function goalExcerpt(goal: string, max = 60): string {
  const line = goal.trim().split('\n')[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** "Sub-agent: <its goal>". */
const subLabel = (s: Pick<SubAgentBar, 'goal'>): string => `Sub-agent: ${goalExcerpt(s.goal) || '(no goal)'}`;

function subLine(s: SubAgentBar): string {
  return `${subLabel(s)} (${plural(s.rounds, 'round', 'rounds')}, ${plural(s.tokens, 'token', 'tokens')}, ${s.outcome})`;
}

export type OverviewPart =
  | { kind: 'segment'; segment: Segment }
  | { kind: 'call'; call: CallBar }
  | { kind: 'gap'; gap: GapBar }
  | { kind: 'marker'; marker: MarkerBar }
  /** A sub-agent's band, or one of its own parts (`inner`). */
  | { kind: 'sub'; sub: SubAgentBar; inner?: Exclude<OverviewPart, { kind: 'sub' }> };

/** The line about one bar of a row. */
export function describePart(p: OverviewPart): string {
  switch (p.kind) {
    case 'segment':
      return `${PART_NAMES[p.segment.kind][0]!.toUpperCase()}${PART_NAMES[p.segment.kind].slice(1)}: ${formatDuration(p.segment.ms)}`;
    case 'call':
      return `${p.call.name}: ${formatDuration(p.call.durMs)} (${CALL_STATUS[p.call.status]}), from ${formatDuration(p.call.startMs)} into the round`;
    case 'gap':
      return `${p.gap.reason} · ${formatDuration(p.gap.endMs - p.gap.startMs)}${p.gap.cut ? ' (drawn shorter)' : ''}`;
    case 'marker':
      return p.marker.count > 1 ? `${p.marker.label} (and ${formatCount(p.marker.count - 1)} more)` : p.marker.label;
    case 'sub':
      return subLine(p.sub);
  }
}

/** What the tooltip says of a part, before the row's numbers: a sub-agent's own part, then the sub-agent. */
export function partLines(p: OverviewPart): string[] {
  return p.kind === 'sub' && p.inner ? [describePart(p.inner), describePart(p)] : [describePart(p)];
}
