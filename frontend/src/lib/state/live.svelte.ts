// What streams beside the log, for display only: the text of answers as
// their tokens come, and the output of running commands. Deltas add to
// it; the event that commits a round's response or a call's result
// replaces it (timeline/live.ts, timeline/output.ts).
import type { Delta, TraceEvent } from '../types';
import {
  applyDeltas,
  applyOutput,
  liveKey,
  outputKey,
  settleLive,
  settleOutput,
  type CallOutput,
  type LiveMap,
  type LiveText,
  type OutputMap,
} from '../timeline';

export class LiveState {
  /** Streaming text of every session's rounds. */
  text = $state.raw<LiveMap>(new Map());
  /** Streaming output of every session's running commands. */
  output = $state.raw<OutputMap>(new Map());

  /** Deltas arrived: text and output grow. */
  applyDeltas(batch: readonly Delta[]): void {
    this.text = applyDeltas(this.text, batch);
    this.output = applyOutput(this.output, batch);
  }

  /** Events were committed: what they settle is dropped. */
  settle(batch: readonly TraceEvent[]): void {
    this.text = settleLive(this.text, batch);
    this.output = settleOutput(this.output, batch);
  }

  /** The streamed text of a round of a session. */
  textOf(sessionId: string, run: number, round: number): LiveText | undefined {
    return this.text.get(liveKey(sessionId, run, round));
  }

  /** The streamed output of a running call of a session. */
  outputOf(sessionId: string, callId: string): CallOutput | undefined {
    return this.output.get(outputKey(sessionId, callId));
  }
}
