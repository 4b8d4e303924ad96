import type {
  Hook,
  Tried,
  MCPReach,
  MCPServerInfo,
  Adopt,
  Command,
  Comparison,
  Fork,
  Forked,
  ForkPreview,
  ImportResult,
  Connection,
  Delta,
  HostCheck,
  ModelCheck,
  ModelInfo,
  Outcome,
  PendingDelete,
  PullProgress,
  FilesWaiting,
  Protections,
  ReadinessReport,
  RenderedPrompt,
  Rule,
  RuleLimits,
  RuleCheck,
  ToolInfo,
  Try,
  TryDelta,
  TryResult,
  SearchFilter,
  SearchResults,
  SearchStatus,
  SessionSnapshot,
  Settings,
  StatusInfo,
  Summary,
  SystemPromptView,
  TraceEvent,
  WorkspaceChange,
  WorkspaceInfo,
} from '../types';

/** Removes the listener it was returned for. */
export type Unsubscribe = () => void;

/** Listeners receive everything that arrived during one animation frame, in order. */
export type Listener<T> = (batch: T[]) => void;

/**
 * Everything the UI asks of the Go side and hears from it: a few reads,
 * one command for everything done to a session (do), and two streams, the
 * log's events and the deltas (the streamed text of answers, the output of
 * running commands). Every state of a session (running,
 * paused, waiting for an answer) is read from its events. The Wails
 * implementation is the only code that talks to Wails; specs and the demo
 * use lib/replay's ReplayBridge, which plays recordings of the Go engine.
 * Commands reject with an Error whose message is readable.
 */
export interface Bridge {
  status(): Promise<StatusInfo>;
  listModels(): Promise<ModelInfo[]>;
  /** The models installed at one of Settings' named Ollama hosts ("" for the local one); rejects naming the host when it does not answer. */
  listModelsOn(host: string): Promise<ModelInfo[]>;
  /** Every network connection Loupe made since it started: each address dialled, how often, whether it stayed on this machine. */
  connections(): Promise<Connection[]>;
  /**
   * The whole system prompt a run sends: the template given (Settings'
   * field, saved or not) in a workspace (with its AGENTS.md, marked), or
   * with a placeholder for the folder when workspace is "".
   */
  systemPrompt(template: string, workspace: string): Promise<SystemPromptView>;
  listSessions(): Promise<Summary[]>;
  /**
   * The session with its events as previews: a long text of an ended run
   * (a result's content, a response, a changed file…) keeps its start,
   * and the event's preview says how long it is whole.
   */
  openSession(id: string): Promise<SessionSnapshot>;
  /**
   * Finds text in every session's log (messages, answers, thinking, tool
   * arguments and whole outputs, notices, reasons, paths): at most limit
   * hits grouped by session. Rejects with what to type for a query of
   * fewer than 3 characters or only quotes.
   */
  search(query: string, filter: SearchFilter, limit: number): Promise<SearchResults>;
  /** How many events search covers while older ones are indexed. */
  searchStatus(): Promise<SearchStatus>;
  /** Gives a session a name of the user's; rejects with why not (empty, too long). */
  renameSession(id: string, title: string): Promise<Summary>;
  /** Pins a session on top of the list, or unpins it. */
  pinSession(id: string, on: boolean): Promise<Summary>;
  /** A new session holding a copy of the session's log, linked to it; rejects while its run has not ended. */
  duplicateSession(id: string): Promise<Summary>;
  /** What a fork of the session at event at would be (or why there is none there): the files changed since, the commands run since, where a copy would go. Changes nothing. */
  previewFork(id: string, at: number): Promise<ForkPreview>;
  /** A new session whose log is the session's up to an event, linked to it, working where the fork says; rejects with why not, and nothing is made. */
  forkSession(f: Fork): Promise<Forked>;
  /** "Run from here on…": a fork in a copy of the workspace on the model it names, whose run goes on at once; rejects with why not (a run that has ended there has nothing left to run). */
  runFromHere(f: Fork): Promise<Forked>;
  /** Deletes a session once a few seconds have passed (or when Loupe closes); undoDelete takes it back until then. */
  deleteSessionLater(id: string): Promise<PendingDelete>;
  /** Takes back deleteSessionLater while its time is not up. */
  undoDelete(id: string): Promise<Summary>;
  /**
   * Two sessions side by side, round by round, with the first round where
   * they diverge, all computed in Go (session.Compare). Rejects with what
   * to do for the same session twice or one that is gone.
   */
  compareSessions(a: string, b: string): Promise<Comparison>;
  /** One event's whole payload, as stored (JSON text), for an event that came cut. */
  eventPayload(sessionId: string, seq: number): Promise<string>;
  /**
   * Carries out one command on a session: create, delete, set_model, send,
   * stop, stop_call (one running command), answer, stepping and breakpoints, step, continue, the edits at a
   * pause, restores. Rejects with why not (a model without tools, a pause
   * that is over…).
   */
  do(cmd: Command): Promise<Outcome>;
  /** The exact JSON body sent to Ollama for a model_request event. */
  rawRequest(sessionId: string, seq: number): Promise<string>;
  /**
   * A model_request as the model reads it: Ollama renders the request now
   * with the model's current chat template (special tokens and all).
   * Rejects with what to do when Ollama is not running or the model is gone.
   */
  renderedPrompt(sessionId: string, seq: number): Promise<RenderedPrompt>;
  /**
   * Sends a recorded request again (as recorded, or edited, to another
   * model, temperature, num_ctx or host) and resolves with its answer beside
   * the recorded one, compared in Go. Its text streams on onTry under the
   * try's id; cancelTry stops it. Nothing of the session changes. Rejects
   * with what to do (a host that is down, a model that cannot use tools…).
   */
  tryRequest(t: Try): Promise<TryResult>;
  /** Adopt: a fork of the try's session whose log holds the request as the try sent it and the try's answer; rejects with why not (an edited body a log cannot hold). */
  adoptTry(a: Adopt): Promise<Forked>;
  /** Stops the try of that id; false when none was under way. */
  cancelTry(id: string): Promise<boolean>;
  /** The streamed text of the tries under way. */
  onTry(fn: Listener<TryDelta>): Unsubscribe;
  /** The readiness checklist of a model for a session offering these tools; round_trip sends the model one small request. */
  checkModel(check: ModelCheck): Promise<ReadinessReport>;
  getSettings(): Promise<Settings>;
  /** Validates and saves; rejects with what is wrong (a rule that does not parse, an Ollama host that cannot be used…). */
  saveSettings(s: Settings): Promise<void>;
  /**
   * Asks an Ollama host, as typed and not saved, for its version ("" asks
   * where an empty field leads). Rejects with what to type when the host
   * cannot be used; an unreachable one resolves with reachable false.
   */
  checkHost(host: string): Promise<HostCheck>;
  /** What a rule cannot hold (a command deny rule is blind to inline code and scripts) and the path rules that would. */
  ruleLimits(rule: Rule): Promise<RuleLimits>;
  /** How a rule reads and what is wrong with it, exactly as saving it judges it (permission.Rule.Check). */
  checkRule(rule: Rule): Promise<RuleCheck>;
  /** The built-in tools in the order the model sees them, each with the argument holding its path ("" for none). */
  tools(): Promise<ToolInfo[]>;
  /** A workspace's .loupe/settings.json, whether it is trusted, its network setting, exposed paths and remembered answers. */
  workspace(dir: string): Promise<WorkspaceInfo>;
  /**
   * Changes one thing of a workspace folder and returns it as it is now.
   * Rejects, changing nothing, with why (an exposed path that is not
   * absolute, missing, the home folder, Loupe's data…).
   */
  setWorkspace(dir: string, change: WorkspaceChange): Promise<WorkspaceInfo>;
  /** Which OS protections commands get on this machine. */
  protections(): Promise<Protections>;
  /**
   * The MCP servers a run in dir would use (dir "" for the global ones), each
   * started, listed with its state, tools and their schema cost, and stopped.
   * Only the Loupe window has them (a replay does not).
   */
  mcpServers?(dir: string): Promise<MCPServerInfo[]>;
  /**
   * What each MCP server a run in dir would use (dir "" for the global ones)
   * can do on this machine, none started: for Protections.
   */
  mcpReach?(dir: string): Promise<MCPReach[]>;
  /**
   * Runs hooks as edited (saved or not) against every recorded call of a
   * stored session, in the sandbox with the workspace read-only: what each
   * would have decided. The session is not changed.
   */
  tryHooks?(sessionId: string, hooks: Hook[]): Promise<Tried[]>;
  /** Adds the servers of a pasted mcpServers configuration; resolves with their names. */
  addMCPServers?(pasted: string): Promise<string[]>;
  /** Removes a global MCP server. */
  removeMCPServer?(name: string): Promise<void>;
  /** The end of an MCP server's log (its stderr). */
  mcpLog?(name: string): Promise<string>;
  /**
   * Asks where to save a shared replay of the session (one HTML file that
   * replays it in any browser, from disk, with no network) and writes it
   * there; resolves with the path, or "" when cancelled. Only the Loupe
   * window has it: a page that is not (a replay, the demo) offers no Share.
   */
  shareSession?(id: string): Promise<string>;
  /** Native folder picker with the title given; "" when cancelled. */
  pickFolder(title: string): Promise<string>;
  /**
   * Stores the session exported as JSON in the file at path, read by Go as
   * a stream. how: "" keeps the file's id (a session there already comes
   * back as the result's clash, nothing imported), "as_new" keeps both,
   * "skip" leaves it. Rejects with what is wrong with the file and where.
   */
  importFile(path: string, how: string): Promise<ImportResult>;
  /** importFile for a file the page read itself (dropped where its path is not known). */
  importText(text: string, how: string): Promise<ImportResult>;
  /** Native file picker for a session export; "" when cancelled. */
  pickImportFile(title: string): Promise<string>;
  /** The paths of files dropped on the window (the native window tells Go, not the page). */
  onFilesDropped(fn: (paths: string[]) => void): Unsubscribe;
  /** Opens a link in the system browser, never inside the app window. */
  openURL(url: string): void;
  /**
   * Starts `ollama serve` on the host Loupe uses, when nothing answers
   * there, and resolves with the status after. Rejects with why it could
   * not (not installed, a host on another machine, a server that did not
   * come up: the message names its log).
   */
  startOllama(): Promise<StatusInfo>;
  /**
   * Pulls a model by name; its progress comes on onPull. Resolves once it
   * is installed or was cancelled (cancelPull); rejects with why it failed
   * (no network, no such model…).
   */
  pullModel(name: string): Promise<void>;
  /** Cancels the pull of name; false when none was under way. */
  cancelPull(name: string): Promise<boolean>;
  /** Removes an installed model. */
  deleteModel(name: string): Promise<void>;
  /** Progress of the pulls under way. */
  onPull(fn: Listener<PullProgress>): Unsubscribe;
  /**
   * How many commands (of other sessions in the same folder, or calls of
   * its MCP servers) a session's Undo, Restore or fork copy waits for to
   * end; 0 once it waits no more.
   */
  onFilesWaiting(fn: Listener<FilesWaiting>): Unsubscribe;
  /** Ends those waits of the session: each fails, having changed nothing; false when none was under way. */
  stopWaiting(session: string): Promise<boolean>;
  /** Stops listening to the backend (the page is going away). */
  close(): void;

  /** Committed timeline events of every session, de-duplicated by (session_id, seq). */
  onEvents(fn: Listener<TraceEvent>): Unsubscribe;
  /** Streamed deltas (not stored): token text, and running commands' output (call_id set). */
  onDeltas(fn: Listener<Delta>): Unsubscribe;
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
