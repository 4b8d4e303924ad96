// What a replay is given besides its recording (the machine around it:
// Ollama's state, models, protections, pulls, the folder picker; its pace),
// and how it keeps the calls the UI made.
import type { Scheduler } from '../bridge/hub';
import type { ModelInfo, Protections, StatusInfo } from '../types';
import type { RecordedPull } from './pulls';

export interface ReplayOptions {
  /** A mark of the recording: everything before it has already happened (stored, as when a session is reopened). */
  from?: string;
  /** How event batches are flushed; a microtask by default. */
  schedule?: Scheduler;
  /** Ollama's state and the installed models: the machine's, not the engine's, so not recorded. */
  status?: Partial<StatusInfo>;
  models?: ModelInfo[];
  /** What commands get on this machine (not recorded: it differs by machine). */
  protections?: Protections;
  /** What the native folder pickers return ("" = cancelled). */
  pick?: string;
  /** The pulls the machine can make, by the name pulled (lib/replay/pulls.ts, recorded from the Go client). */
  pulls?: Record<string, RecordedPull>;
  /** Milliseconds between a pull's progress lines; 0 sends the next as soon as the last is out. */
  pullStepMs?: number;
  /** What Start Ollama does: the status it leads to, or the error it rejects with. */
  start?: { status?: Partial<StatusInfo>; error?: string };
  /** Milliseconds between played steps, so a person can follow (the demo); 0 plays at once. */
  paceMs?: number;
  /**
   * For the demo: a message sent may say anything (the recorded run plays),
   * and a command the recording does not have next is refused with what
   * it can do instead, without counting as a problem.
   */
  lenient?: boolean;
}

/** A call the UI made, in order. */
export interface ReplayCall {
  method: string;
  args: unknown[];
}
