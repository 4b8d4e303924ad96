import type {
  Approval,
  ApprovalClosed,
  Breakpoints,
  Delta,
  ModelInfo,
  Protections,
  RequestEdit,
  RestoreResult,
  Rule,
  RuleLimits,
  Scope,
  SessionSnapshot,
  Settings,
  StatusInfo,
  Summary,
  TraceEvent,
  WorkspaceInfo,
} from '../types';

/** Removes the listener it was returned for. */
export type Unsubscribe = () => void;

/** Listeners receive everything that arrived during one animation frame, in order. */
export type Listener<T> = (batch: T[]) => void;

/**
 * Everything the UI asks of the Go side and hears from it. The Wails
 * implementation is the only code that touches wailsjs; specs and the demo
 * use lib/replay's ReplayBridge, which plays recordings of the Go engine.
 * Commands reject with an Error whose message is readable.
 */
export interface Bridge {
  status(): Promise<StatusInfo>;
  listModels(): Promise<ModelInfo[]>;
  listSessions(): Promise<Summary[]>;
  newSession(workspace: string, model: string): Promise<Summary>;
  deleteSession(id: string): Promise<void>;
  setModel(id: string, model: string): Promise<void>;
  /**
   * The session with its events as previews: a long text (a result's
   * content, a response, a changed file…) keeps its start, and the
   * event's preview says how long it is whole.
   */
  openSession(id: string): Promise<SessionSnapshot>;
  /** One event's whole payload, as stored (JSON text), for an event that came cut. */
  eventPayload(sessionId: string, seq: number): Promise<string>;
  /** Starts a run. Rejects (e.g. model lacks tools, a run is already going). */
  send(id: string, text: string): Promise<void>;
  stop(id: string): Promise<void>;
  /**
   * Answers an approval and remembers it for the scope. Rejects a longer
   * scope for a once_only question (which stays open).
   */
  answerFor(approvalId: string, allow: boolean, scope: Scope): Promise<void>;
  /** Native folder picker; "" when cancelled. */
  pickWorkspace(): Promise<string>;
  /** Native folder picker with the title given; "" when cancelled. */
  pickFolder(title: string): Promise<string>;
  /** The exact JSON body sent to Ollama for a model_request event. */
  rawRequest(sessionId: string, seq: number): Promise<string>;
  getSettings(): Promise<Settings>;

  // Step-through. The session's Summary says whether it is stepping, its
  // breakpoints and where it is paused; each change arrives as a Summary
  // and as checkpoint and edit events.
  /** Pause at every checkpoint (on), or only at breakpoints (off). */
  setStepping(id: string, on: boolean): Promise<void>;
  setBreakpoints(id: string, bp: Breakpoints): Promise<void>;
  /** Resumes a paused run until the next checkpoint. */
  step(id: string): Promise<void>;
  /** Turns stepping off and resumes until a breakpoint or the end. */
  continueRun(id: string): Promise<void>;
  /** Changes the pending request of a run paused before_request. */
  editRequest(id: string, edit: RequestEdit): Promise<void>;
  /** Changes the pending call's arguments (a JSON object as text); rejects with the validation message. */
  editArgs(id: string, args: string): Promise<void>;
  /** Answers the pending call with the user's observation, without running it. */
  skipCall(id: string, observation: string): Promise<void>;
  /** Changes the result about to go back to the model. */
  editResult(id: string, content: string): Promise<void>;
  /** Validates and saves; rejects with what is wrong (a rule that does not parse…). */
  saveSettings(s: Settings): Promise<void>;
  /** What a rule cannot hold (a command deny rule is blind to inline code and scripts) and the path rules that would. */
  ruleLimits(rule: Rule): Promise<RuleLimits>;

  // Safety. Trust, network, exposed paths and remembered answers are per workspace folder.
  /** A workspace's .loupe/settings.json, whether it is trusted, its network setting and remembered answers. */
  workspace(dir: string): Promise<WorkspaceInfo>;
  /** Trusts (or stops trusting) the workspace's settings file as it is now. */
  trustWorkspace(dir: string, trust: boolean): Promise<void>;
  setWorkspaceNetwork(dir: string, allow: boolean): Promise<void>;
  /**
   * Sets the host paths the workspace's commands may also read
   * (read-only), replacing the list. Rejects, saving nothing, with why a
   * path is refused (not absolute, missing, the home folder, Loupe's data).
   */
  setWorkspaceExpose(dir: string, paths: string[]): Promise<void>;
  /** Drops the answers remembered "always for this workspace". */
  forgetGrants(dir: string): Promise<void>;
  /** Which OS protections commands get on this machine. */
  protections(): Promise<Protections>;
  /**
   * Puts the files changed at or after event seq back. Without force,
   * files changed outside Loupe since are only reported (done false).
   */
  restoreFiles(id: string, seq: number, force: boolean): Promise<RestoreResult>;
  /** Puts the files back as they were before a run (a turn). */
  undoRun(id: string, run: number, force: boolean): Promise<RestoreResult>;
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
