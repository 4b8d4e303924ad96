import type {
  Approval,
  ApprovalClosed,
  Delta,
  ModelInfo,
  SessionSnapshot,
  Settings,
  StatusInfo,
  Summary,
  TraceEvent,
} from '../types';

/** Removes the listener it was returned for. */
export type Unsubscribe = () => void;

/** Listeners receive everything that arrived during one animation frame, in order. */
export type Listener<T> = (batch: T[]) => void;

/**
 * Everything the UI asks of the Go side and hears from it. The Wails
 * implementation is the only code that touches wailsjs; tests and the demo
 * use FakeBridge. Commands reject with an Error whose message is readable.
 */
export interface Bridge {
  status(): Promise<StatusInfo>;
  listModels(): Promise<ModelInfo[]>;
  listSessions(): Promise<Summary[]>;
  newSession(workspace: string, model: string): Promise<Summary>;
  deleteSession(id: string): Promise<void>;
  setModel(id: string, model: string): Promise<void>;
  openSession(id: string): Promise<SessionSnapshot>;
  /** Starts a run. Rejects (e.g. model lacks tools, a run is already going). */
  send(id: string, text: string): Promise<void>;
  stop(id: string): Promise<void>;
  answer(approvalId: string, allow: boolean): Promise<void>;
  /** Native folder picker; "" when cancelled. */
  pickWorkspace(): Promise<string>;
  /** The exact JSON body sent to Ollama for a model_request event. */
  rawRequest(sessionId: string, seq: number): Promise<string>;
  getSettings(): Promise<Settings>;
  saveSettings(s: Settings): Promise<void>;
  /** Opens a link in the system browser, never inside the app window. */
  openURL(url: string): void;
  /** Stops listening to the backend (the page is going away). */
  close(): void;

  /** Committed timeline events, de-duplicated by (session_id, seq). */
  onEvents(fn: Listener<TraceEvent>): Unsubscribe;
  /** Streamed token deltas (not stored). */
  onDeltas(fn: Listener<Delta>): Unsubscribe;
  /** Sessions whose summary changed. */
  onSessions(fn: Listener<Summary>): Unsubscribe;
  /** Approvals that opened. */
  onApprovals(fn: Listener<Approval>): Unsubscribe;
  /** Approvals that were answered or withdrawn. */
  onApprovalsClosed(fn: Listener<ApprovalClosed>): Unsubscribe;
}

/** A command failed on the Go side; message is what to show the user. */
export class BridgeError extends Error {
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

/** Wails rejects with the Go error's text (a string); normalise to Error. */
export function toBridgeError(command: string, e: unknown): BridgeError {
  if (e instanceof BridgeError) return e;
  if (e instanceof Error) return new BridgeError(e.message, command);
  if (typeof e === 'string' && e !== '') return new BridgeError(e, command);
  return new BridgeError(`${command} failed`, command);
}
