// Generated from the Go types by `go test . -run TestWindowTypes -update`: do not edit.
// Field names are the json tags; an omitempty field is optional (but for a
// field a command needs), and a nil pointer, slice or map arrives as null.
import type { JsonValue } from './json';

/** The methods of main.App the window calls (bound by Wails). */
export interface BoundApp {
  /** AddMCPServers adds the servers of a pasted configuration in the
   * mcpServers shape to the global settings and returns their names. */
  AddMCPServers(pasted: string): Promise<string[] | null>;
  /** AdoptTry keeps a try: a fork of its session whose log holds the request
   * as the try sent it and the try's answer, going on with the try's model
   * and host (session.Manager.Adopt). The tried session does not change. */
  AdoptTry(t: Adopt): Promise<Forked>;
  /** CancelPull stops the pull of name; nothing of it is installed then. It
   * reports whether a pull of that name was under way. */
  CancelPull(name: string): Promise<boolean>;
  /** CancelTry stops the try id; false when none was under way. */
  CancelTry(id: string): Promise<boolean>;
  /** CheckHost asks the Ollama host typed in Settings (not saved yet) for its
   * version; "" checks where an empty field leads (--host, OLLAMA_HOST or
   * the default). A host that cannot be used is an error saying what to
   * type. */
  CheckHost(host: string): Promise<HostCheck>;
  /** CheckModel is the readiness checklist of a model for a new or open
   * session: the tools capability, whether the system prompt and the tool
   * schemas leave room in num_ctx, and, when asked, one round trip. */
  CheckModel(c: ModelCheck): Promise<ReadinessReport>;
  /** CheckRule says how a rule reads and what is wrong with it, exactly as
   * saving it would judge it, for the rule editor as the rule is typed. */
  CheckRule(r: Rule): Promise<RuleCheck>;
  /** CompareSessions puts two sessions side by side, round by round, with
   * the first round where they diverge (session.Compare). It reads only. */
  CompareSessions(first: string, second: string): Promise<Comparison>;
  /** Connections lists every network connection Loupe has made since it
   * started: each address dialled, how often, and whether it stayed on this
   * machine. Every connection goes through the Ollama client's transport. */
  Connections(): Promise<Connection[] | null>;
  /** DeleteModel removes an installed model from Ollama. */
  DeleteModel(name: string): Promise<void>;
  /** DeleteSessionLater deletes a session once UndoDeleteFor has passed, or
   * when Loupe closes; until then it is left out of the list and search,
   * and UndoDelete brings it back. If Loupe dies meanwhile, it is kept. */
  DeleteSessionLater(id: string): Promise<PendingDelete>;
  /** Do carries out one command on a session (create, send, stop, stop_call,
   * answer, step, edit, restore…); what the run does in answer arrives as events.
   * The command is the JSON the window sends (session.DecodeCommand): one
   * object whose "do" names the kind. */
  Do(cmd: JsonValue): Promise<Outcome>;
  /** DuplicateSession makes a new session holding a copy of the session's
   * log, linked to it (copied_from). */
  DuplicateSession(id: string): Promise<Summary>;
  /** EventPayload is the whole payload of a session's event seq, as stored
   * (JSON), for an event Open sent cut. */
  EventPayload(id: string, seq: number): Promise<string>;
  /** ForkSession makes a session whose log is the session's up to an event,
   * linked to it, working where the fork says (session.Manager.Fork). */
  ForkSession(f: Fork): Promise<Forked>;
  /** ImportFile stores the session in the file at path (the Import dialog's,
   * or a file dropped on the window): a Loupe export, or a Claude Code,
   * Codex CLI or ATIF session, imported read-only; read as a stream; how
   * is session.ImportKeepID, ImportAsNew or ImportSkip. A session there
   * already comes back as the result's Clash, with nothing imported. */
  ImportFile(path: string, how: string): Promise<ImportResult>;
  /** ImportText is ImportFile for a file the page read itself: one dropped
   * where the window is not told its path (a browser). */
  ImportText(text: string, how: string): Promise<ImportResult>;
  /** MCPLog is the end of a server's log (its stderr). */
  MCPLog(name: string): Promise<string>;
  /** MCPReach says what each MCP server a run in dir would use (dir "" for
   * the global ones) can do on this machine, for Protections; none is
   * started. */
  MCPReach(dir: string): Promise<MCPReach[] | null>;
  /** MCPServers starts the MCP servers a run in dir would use (dir "" for the
   * global ones), and lists each with its state, its tools and their schema
   * cost, then stops them. Env and header values are never in it. */
  MCPServers(dir: string): Promise<MCPServerInfo[] | null>;
  /** Models lists installed models with their capabilities. */
  Models(): Promise<ModelInfo[] | null>;
  /** ModelsOn lists the models installed at a host as the new-session dialog
   * names it: "" for the local host, or a name of Settings' Ollama hosts. */
  ModelsOn(host: string): Promise<ModelInfo[] | null>;
  /** Open returns a session with its log, each event with the payload its
   * card draws (long texts of ended runs cut; EventPayload has the rest). */
  Open(id: string): Promise<SessionDetail>;
  /** PickFolder opens the native folder picker with the title given; "" when
   * cancelled. */
  PickFolder(title: string): Promise<string>;
  /** PickImportFile asks for a session file with the native file dialog: a
   * Loupe export or an ATIF trajectory (*.json), a Claude Code or Codex CLI
   * session (*.jsonl); "" when the user cancels. */
  PickImportFile(title: string): Promise<string>;
  /** PinSession pins a session on top of the list, or unpins it. */
  PinSession(id: string, on: boolean): Promise<Summary>;
  /** PreviewFork says what a fork of the session at event at would be (or why
   * there is none there): the files changed since, the commands run since,
   * where a copy would go. It changes nothing. */
  PreviewFork(id: string, at: number): Promise<ForkPreview>;
  /** Protections says which OS protections commands get on this machine, and
   * what the policy makes of them (sandboxed or not, what is missing). */
  Protections(): Promise<Protections>;
  /** PullModel pulls a model by name into Ollama, sending its progress on
   * chanPull, and returns once it is installed, failed, or was cancelled
   * (CancelPull), which is not an error. */
  PullModel(name: string): Promise<void>;
  /** RawRequest is the exact body sent to Ollama for a model_request event. */
  RawRequest(id: string, seq: number): Promise<string>;
  /** RemoveMCPServer removes a global MCP server. */
  RemoveMCPServer(name: string): Promise<void>;
  /** RenameSession gives a session a name of the user's. */
  RenameSession(id: string, title: string): Promise<Summary>;
  /** RenderedPrompt asks Ollama for the prompt the model's chat template
   * makes, now, of the model_request event seq: "As the model read it". */
  RenderedPrompt(id: string, seq: number): Promise<RenderedPrompt>;
  /** RuleLimits says what a rule cannot hold (a command deny rule cannot see
   * inside inline interpreter code or scripts) and which path rules would
   * hold it whatever runs, for the rule editor. */
  RuleLimits(r: Rule): Promise<RuleLimits>;
  /** RunFromHere is "Run from here on…": a fork in a copy of the workspace,
   * on the model the fork names, whose run goes on at once
   * (session.Manager.RunFrom). */
  RunFromHere(f: Fork): Promise<Forked>;
  /** SaveSettings validates and saves settings. The Ollama host saved is
   * used from the next call to Ollama on, in every session (a --host given
   * at start wins over it). */
  SaveSettings(s: SettingsWire): Promise<void>;
  /** Search finds text in every session's log (messages, answers, thinking,
   * tool arguments and whole outputs, notices, reasons, paths): at most limit
   * hits grouped by session, each with a snippet whose matched pieces are
   * marked. A query of fewer than 3 characters, or only quotes, is an error
   * that says so. */
  Search(query: string, f: SearchFilter, limit: number): Promise<SearchResults>;
  /** SearchStatus is how many events search covers, while older ones are
   * indexed in the background (results meanwhile are marked partial). */
  SearchStatus(): Promise<SearchStatus>;
  /** Sessions lists stored sessions, most recent first. */
  Sessions(): Promise<Summary[] | null>;
  /** SetWorkspace changes one thing of a workspace folder (trust, network,
   * exposed paths, remembered answers) and describes it as it is now. */
  SetWorkspace(dir: string, c: WorkspaceChangeFields): Promise<WorkspaceInfo>;
  /** Settings returns the current settings. */
  Settings(): Promise<SettingsWire>;
  /** ShareSession asks where to save a shared replay of the session (the file
   * `loupe export --format html` writes: one page that replays it in any
   * browser, from disk) and writes it there. It returns the path written, or
   * "" when the user cancelled. The file appears whole or not at all: it is
   * written beside its place and renamed into it. */
  ShareSession(id: string): Promise<string>;
  /** StartOllama starts `ollama serve` on the host Loupe uses when nothing
   * answers there (and does nothing when a server already does), and returns
   * the status after. It fails, saying why and where the log is, when Ollama
   * is not installed, the host is on another machine, or the server does not
   * come up in time. Loupe stops a server it started when it exits. */
  StartOllama(): Promise<StatusInfo>;
  /** Status checks Ollama (quickly) and reports the database. */
  Status(): Promise<StatusInfo>;
  /** StopWaiting ends the waits of the session id's Undo, Restore or fork's
   * copy for commands to end; each fails then, having changed nothing. It
   * reports whether one was under way. */
  StopWaiting(id: string): Promise<boolean>;
  /** SystemPrompt is the whole system prompt a run would send, from the
   * template given (Settings' field, saved or not) in the workspace given
   * (with its AGENTS.md), or with a placeholder for the folder when "". */
  SystemPrompt(template: string, workspace: string): Promise<SystemPromptView>;
  /** Tools lists the built-in tools in the order the model sees them, each
   * with whether it takes a path (and so can be named by a path rule). */
  Tools(): Promise<ToolInfo[] | null>;
  /** TryHooks runs hooks as Settings holds them while they are edited (saved
   * or not) against every recorded call of a stored session, and says what
   * each would have decided (session.Manager.TryHooks: in the sandbox, the
   * workspace read-only, the session unchanged). */
  TryHooks(sessionID: string, hs: Hook[] | null): Promise<Tried[] | null>;
  /** TryRequest sends a recorded request again (as recorded, or edited, to
   * another model, temperature, num_ctx or host) and returns its answer
   * beside the recorded one, compared. The text streams on chanTry; CancelTry
   * stops it. Nothing of the session changes. */
  TryRequest(t: Try): Promise<TryResult>;
  /** UndoDelete takes back DeleteSessionLater while its time is not up. */
  UndoDelete(id: string): Promise<Summary>;
  /** Workspace describes a workspace folder's trust, network, exposed paths
   * and remembered answers. */
  Workspace(dir: string): Promise<WorkspaceInfo>;
}

/** One thing the window asks of a session (session.Command): do names the kind, the other fields are the kind's. */
export type Command =
  | ({ do: 'create' } & CreateCommand)
  | ({ do: 'demo' } & DemoCommand)
  | ({ do: 'delete' } & DeleteCommand)
  | ({ do: 'set_model' } & SetModelCommand)
  | ({ do: 'set_tools' } & SetToolsCommand)
  | ({ do: 'send' } & SendCommand)
  | ({ do: 'stop' } & StopCommand)
  | ({ do: 'stop_call' } & StopCallCommand)
  | ({ do: 'answer' } & AnswerCommand)
  | ({ do: 'set_stepping' } & SetSteppingCommand)
  | ({ do: 'set_breakpoints' } & SetBreakpointsCommand)
  | ({ do: 'step' } & StepCommand)
  | ({ do: 'continue' } & ContinueCommand)
  | ({ do: 'edit_request' } & EditRequestCommand)
  | ({ do: 'edit_args' } & EditArgsCommand)
  | ({ do: 'skip' } & SkipCommand)
  | ({ do: 'edit_result' } & EditResultCommand)
  | ({ do: 'restore_files' } & RestoreFilesCommand)
  | ({ do: 'undo_run' } & UndoRunCommand)
  | ({ do: 'compact' } & CompactCommand);

/** The fields each kind of command takes besides do (session.DecodeCommand refuses any other). */
export const COMMAND_FIELDS = {
  create: ['workspace', 'model', 'host', 'tools'],
  demo: [],
  delete: ['session'],
  set_model: ['session', 'model'],
  set_tools: ['session', 'tools'],
  send: ['session', 'text'],
  stop: ['session'],
  stop_call: ['session', 'call_id'],
  answer: ['session', 'agent', 'call_id', 'allow', 'scope'],
  set_stepping: ['session', 'on'],
  set_breakpoints: ['session', 'breakpoints'],
  step: ['session', 'at', 'into'],
  continue: ['session', 'at'],
  edit_request: ['session', 'at', 'request'],
  edit_args: ['session', 'text', 'at'],
  skip: ['session', 'text', 'at'],
  edit_result: ['session', 'text', 'at'],
  restore_files: ['session', 'seq', 'force'],
  undo_run: ['session', 'run', 'force'],
  compact: ['session'],
} as const satisfies Record<Command['do'], readonly string[]>;

/** The fields each kind of command needs (session.Needs: Do refuses the command with one empty); the types above require them. */
export const COMMAND_REQUIRED = {
  create: [],
  demo: [],
  delete: ['session'],
  set_model: ['session', 'model'],
  set_tools: ['session'],
  send: ['session', 'text'],
  stop: ['session'],
  stop_call: ['session', 'call_id'],
  answer: ['session', 'call_id'],
  set_stepping: ['session'],
  set_breakpoints: ['session', 'breakpoints'],
  step: ['session'],
  continue: ['session'],
  edit_request: ['session', 'request'],
  edit_args: ['session', 'text'],
  skip: ['session'],
  edit_result: ['session'],
  restore_files: ['session', 'seq'],
  undo_run: ['session', 'run'],
  compact: ['session'],
} as const satisfies { [K in Command['do']]: readonly (keyof Extract<Command, { do: K }>)[] };

/** The constants trace.Err*. */
export const ERROR_KINDS = {
  unknownTool: "unknown_tool",
  invalidArgs: "invalid_args",
  failed: "failed",
  denied: "denied",
  cancelled: "cancelled",
  interrupted: "interrupted",
  skipped: "skipped",
  stopped: "stopped",
} as const;
export type ErrorKind = (typeof ERROR_KINDS)[keyof typeof ERROR_KINDS];

/** The constants trace.End*. */
export const STOP_REASONS = {
  answered: "answered",
  roundCap: "round_cap",
  cancelled: "cancelled",
  error: "error",
  truncated: "truncated",
  interrupted: "interrupted",
  repeated: "repeated_calls",
  timeout: "timeout",
  doesNotFit: "does_not_fit",
  printedCall: "printed_call",
  hookBlocked: "hook_blocked",
} as const;
export type StopReason = (typeof STOP_REASONS)[keyof typeof STOP_REASONS];

/** The constants trace.Point*. */
export const POINTS = {
  beforeRequest: "before_request",
  afterResponse: "after_response",
  beforeTool: "before_tool",
  afterResult: "after_result",
  afterHook: "after_hook",
} as const;
export type CheckpointPoint = (typeof POINTS)[keyof typeof POINTS];

/** The constants trace.Action*. */
export const ACTIONS = {
  step: "step",
  continue: "continue",
  skip: "skip",
  stepInto: "step_into",
} as const;
export type ResumeAction = (typeof ACTIONS)[keyof typeof ACTIONS];

/** The constants trace.Edit*. */
export const EDIT_TARGETS = {
  system: "system",
  options: "options",
  message: "message",
  tools: "tools",
  args: "args",
  result: "result",
} as const;
export type EditTarget = (typeof EDIT_TARGETS)[keyof typeof EDIT_TARGETS];

/** The constants trace.Source*. */
export const METER_SOURCES = {
  ollama: "ollama",
  cache: "cache",
  estimate: "estimate",
} as const;
export type MeterSource = (typeof METER_SOURCES)[keyof typeof METER_SOURCES];

/** The constants trace.Standing*. */
export const STANDINGS = {
  paused: "paused",
  asking: "asking",
} as const;
export type RunStanding = (typeof STANDINGS)[keyof typeof STANDINGS];

/** The constants trace.Compact*. */
export const COMPACT_TRIGGERS = {
  threshold: "threshold",
  doesNotFit: "does_not_fit",
  button: "button",
} as const;
export type CompactTrigger = (typeof COMPACT_TRIGGERS)[keyof typeof COMPACT_TRIGGERS];

/** The constants trace.Outcome*. */
export const ROUND_OUTCOMES = {
  tools: "tools",
  running: "running",
} as const;
export type RoundOutcome = (typeof ROUND_OUTCOMES)[keyof typeof ROUND_OUTCOMES];

/** The constants trace.Call*. */
export const CALL_OUTCOMES = {
  same: "same",
  argsDiffer: "args_differ",
  onlyRecorded: "only_recorded",
  onlyAlternative: "only_alternative",
  ran: "ran",
  pending: "pending",
  notRun: "not_run",
} as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[keyof typeof CALL_OUTCOMES];

/** The payload of each kind of event (trace.Payloads). */
export interface PayloadMap {
  checkpoint: CheckpointPayload;
  compaction: CompactionPayload;
  edit: EditPayload;
  error: ErrorPayload;
  hook_run: HookRun;
  model_request: ModelRequestPayload;
  model_response: ModelResponsePayload;
  notice: NoticePayload;
  permission: PermissionPayload;
  restore: RestorePayload;
  run_end: RunEndPayload;
  tool_call: ToolCallPayload;
  tool_result: ToolResultPayload;
  user_message: UserMessagePayload;
}

/** session.Adopt: Adopt keeps a try: a fork of the session whose log is the parent's
 * through the event before the request tried, then the request the try
 * sent and its answer, and which goes on from there with the try's model
 * and host. */
export interface Adopt {
  /** Try is the try as Manager.Try returned it (the window passes it
   * back): its session and request, the body it sent, its answer. */
  try: TryResult;
  /** Files and Folder are a Fork's: where the fork works. */
  files?: string;
  folder?: string;
}

/** session.Answer: Answer answers the question the run asks about a call: allow or deny
 * (Allow false), for the Scope (permission.Scope: once, session,
 * workspace). */
export interface AnswerCommand {
  session: string;
  /** Agent is the loop that asks: "" for the session's own, else the
   * sub-agent's (its events' agent), whose model may name a call as
   * another loop's does. */
  agent?: string;
  call_id: string;
  allow?: boolean;
  scope?: string;
}

/** trace.AnswerComparison: AnswerComparison is what differs between the recorded answer and the
 * alternative. */
export interface AnswerComparison {
  same_text: boolean;
  /** Text is the diff of the answers' text, line by line, recorded first. */
  text: TryDiffLine[] | null;
  same_thinking: boolean;
  /** SameCalls: the same tools called with the same arguments in the same
   * order. */
  same_calls: boolean;
  calls: TryCallPair[] | null;
  /** Figures are the meters (tokens read and written, the share of
   * num_ctx) and the timings, in that order. */
  figures: TryFigure[] | null;
}

/** session.Breakpoints: Breakpoints make a run pause at checkpoints even when not stepping: at
 * every checkpoint of the named kinds, and before any call of the named
 * tools. */
export interface Breakpoints {
  points: string[] | null;
  tools: string[] | null;
}

/** trace.CallFigure: CallFigure is one tool call of a round: its name, its arguments as the
 * model wrote them and in the canonical form they are compared in (keys
 * sorted, no spacing), and how it ended. */
export interface CallFigure {
  name: string;
  args: string;
  /** Outcome is CallRan, CallPending, CallNotRun or an error kind (Err*). */
  outcome: string;
  duration_ms: number;
}

/** trace.Checkpoint: Checkpoint records a pause of a step-through run and how it ended. A run
 * whose last event is a paused checkpoint is still paused there, also
 * after the app restarts. A paused checkpoint carries what may be edited
 * there, so that the window draws the pause from the log alone: the
 * pending request before a request, the pending call's arguments before a
 * call. The result at after_result is the tool_result event just before
 * it. Edits made during the pause are edit events after it. */
export interface CheckpointPayload {
  point: string;
  state: string;
  call_id?: string;
  tool?: string;
  /** Hook names the hook that just ran (after_hook). */
  hook?: string;
  /** Breakpoint is true when a breakpoint (not stepping) made it pause. */
  breakpoint?: boolean;
  /** Action says how a pause ended (on resumed). */
  action?: string;
  /** Request is the request about to be sent (before_request, on
   * paused). Pauses only happen while a person steps through a run, so
   * keeping the whole pending history here costs nothing per round of
   * an ordinary run. */
  request?: PendingRequest;
  /** Args are the pending call's arguments (before_tool, on paused). */
  args?: JsonValue;
  /** Result is the content the model will read of the call's result
   * (after_result), set once an edit has changed it (in Edit.Pause):
   * the paused checkpoint leaves it to the tool_result before it. */
  result?: string;
}

/** session.Clash: Clash names the session an import would have replaced: the window asks
 * whether to keep both or skip. */
export interface Clash {
  id: string;
  title: string;
}

/** session.Compact: Compact summarises the start of the conversation now, between runs. */
export interface CompactCommand {
  session: string;
}

/** trace.Compaction: Compaction replaces the oldest part of the history with a summary the
 * model wrote: the messages from the conversation's start through the
 * message of event Through become one message holding Summary. The events
 * it replaced stay in the log; the history that requests after it send
 * (and show) is the compacted one. The system prompt is never part of it,
 * and a call and its results are always replaced together or kept
 * together (see PlanCompaction). */
export interface CompactionPayload {
  /** RequestSeq is the summarising model_request; Summary its answer. */
  request_seq: number;
  trigger: string;
  summary: string;
  /** From and Through are the first and last replaced history events;
   * Messages how many messages they were. */
  from_seq: number;
  through_seq: number;
  messages: number;
  /** The runs and rounds of the first and last replaced events (round 0:
   * the run's user message). */
  from_run: number;
  from_round: number;
  through_run: number;
  through_round: number;
  /** TokensBefore and TokensAfter are Loupe's estimates of the round's
   * prompt with the history before and after. */
  tokens_before: number;
  tokens_after: number;
}

/** trace.Figures: Figures are one session's rounds and totals, and whether its last run
 * is still going. */
export interface CompareFigures {
  rounds: RoundFigures[] | null;
  totals: CompareTotals;
  open: boolean;
}

/** trace.Row: Row is one aligned round: A and B are nil where that session has no
 * such round. */
export interface CompareRow {
  run: number;
  round: number;
  a: RoundFigures | null;
  b: RoundFigures | null;
  /** Same is set when the round is the same on both sides (see above). */
  same: boolean;
}

/** trace.Totals: Totals add up a session's rounds. */
export interface CompareTotals {
  runs: number;
  rounds: number;
  calls: number;
  prompt_tokens: number;
  output_tokens: number;
  model_ms: number;
  tool_ms: number;
  /** WallMs adds each run's time from the user's message to its end (to
   * its last event, for a run still going). */
  wall_ms: number;
  denials: number;
  errors: number;
  /** End is why the last run ended ("" while it goes on). */
  end: string;
}

/** session.Comparison: Comparison is two sessions side by side, round by round
 * (trace.Align): what the window's compare view and `loupe compare` show.
 * Sessions are the two, in the order asked; A in the alignment is the
 * first. */
export interface Comparison {
  sessions: StoredSession[] | null;
  a: CompareFigures;
  b: CompareFigures;
  rows: CompareRow[] | null;
  /** Diverge is the index in Rows of the first round where the two go
   * different ways, or -1 when they have not (yet); Why says how (see
   * trace.Align for what counts). */
  diverge: number;
  why?: string;
}

/** session.Conflict: Conflict is a file that changed outside Loupe since Loupe last wrote it:
 * putting it back would lose that change, so the user is asked first.
 * Kept is set when undo will not write it even when told to overwrite:
 * it is now a link or not a regular file (writing it would write what it
 * points at), or it is a protected path (.git/config, hooks, .loupe/,
 * Loupe's database), which Loupe never changes on its own. */
export interface Conflict {
  path: string;
  reason: string;
  kept?: boolean;
}

/** ollama.Connection: Connection is what Dials knows of one address: how many connections
 * were tried there and how many of them failed. */
export interface Connection {
  /** Host and Port are as dialled: the name the user gave (localhost,
   * gpu-box.lan) or an IP address. */
  host: string;
  port: string;
  /** Count is the connections tried; Failed those that did not connect.
   * A connection is reused for many requests while it stays open. */
  count: number;
  failed: number;
  /** Loopback is true while every connection there stayed on this
   * machine (the address it reached, or for a failed one the address
   * named, is a loopback address). */
  loopback: boolean;
  /** Remote is the address the last connection reached, "" if none did. */
  remote?: string;
}

/** trace.Meter: Meter is the context meter of one answered request, recorded with the
 * answer. */
export interface ContextMeter {
  /** Prompt is the tokens the prompt takes in the context (see Source). */
  prompt: number;
  source: string;
  /** Counted is Ollama's prompt_eval_count as reported (0: none). */
  counted?: number;
  /** Output is the answer's tokens (eval_count): the next prompt holds
   * them too. */
  output?: number;
  /** NumCtx is what the request asked for; Loaded what Ollama allocated
   * for the loaded model after the answer (/api/ps context_length; 0:
   * not known). When Loaded is known it is the context that counts. */
  num_ctx: number;
  loaded?: number;
  /** Parts split Prompt in proportion to the request's Split (so they are
   * estimated; they add up to Prompt). When Ollama dropped messages,
   * the loss is taken from the history. */
  parts: PromptParts;
  /** BytesPerToken is this round's measured rate, when its count is a
   * full count the next estimates can be calibrated by (0: it is not:
   * no count, a cache-only count, a cut prompt). */
  bytes_per_token?: number;
  /** Dropped is set when Ollama probably dropped part of the prompt. */
  dropped?: boolean;
}

/** session.Continue: Continue runs on to a breakpoint or the end of the run; Step mode stays
 * on for the next run. */
export interface ContinueCommand {
  session: string;
  at?: number;
}

/** session.Create: Create makes a new, empty session on a workspace folder (the demo's
 * model given none works in a fresh copy of its project). */
export interface CreateCommand {
  workspace?: string;
  model?: string;
  /** Host is the Ollama host the session runs on: a Settings name, an
   * address, or "" for the local host. */
  host?: string;
  /** Tools are the tools it offers its model, by name (nil: every
   * built-in tool). */
  tools?: string[];
}

/** trace.Cut: Cut is how long the whole of a field cut from a preview is: a text's
 * bytes (UTF-8) and lines, or the bytes of the JSON of a value left out. */
export interface Cut {
  bytes: number;
  lines?: number;
}

/** session.Delete: Delete stops a session's run and removes the session with its log. */
export interface DeleteCommand {
  session: string;
}

/** agent.Delta: Delta is one streamed piece of the model's answer, or of a running
 * call's output, for live display: the window gets it as it is. Nothing of
 * it is stored: the model_response and the tool_result are the record. */
export interface Delta {
  session_id: string;
  run: number;
  round: number;
  content?: string;
  thinking?: string;
  /** CallID is set for a call's output (and Content and Thinking are
   * not): Output holds what the call wrote since its last delta, in
   * order, each piece from stdout or stderr; Omitted counts the bytes
   * it wrote past what is streamed (see tools.Output). */
  call_id?: string;
  output?: OutputPiece[];
  omitted?: number;
  /** Agent is the sub-run the delta is of ("" for the session's own
   * loop), as on its events (trace.Event.Agent). */
  agent?: string;
}

/** session.Demo: Demo makes a session of the demo and starts it. */
export interface DemoCommand {
}

/** trace.Display: Display is extra data for the UI that the model does not see. */
export interface Display {
  path?: string;
  diff?: string;
  command?: string;
}

/** session.EditArgs: EditArgs changes the pending call's arguments (JSON) at a before_tool
 * pause. */
export interface EditArgsCommand {
  session: string;
  text: string;
  at?: number;
}

/** trace.Edit: Edit records a change the user made at a pause, with the value before
 * and after as JSON (a string for system, message and result; an object
 * for options and args; the sorted list of the names offered for tools).
 * The history projection applies edits, so the model sees the edited
 * conversation from then on. */
export interface EditPayload {
  target: string;
  seq?: number;
  call_id?: string;
  before: JsonValue;
  after: JsonValue;
  /** Pause is the paused checkpoint as this edit leaves it
   * (Checkpoint.WithEdit): what the run does when it goes on, and what
   * the window shows of the pause from this event on. Logs written
   * before it existed lack it; StateOf reads the pause from the edits. */
  pause?: CheckpointPayload;
}

/** session.EditRequest: EditRequest changes the pending request at a before_request pause. */
export interface EditRequestCommand {
  session: string;
  at?: number;
  request: RequestEdit;
}

/** session.EditResult: EditResult changes the content of the result at an after_result pause. */
export interface EditResultCommand {
  session: string;
  text?: string;
  at?: number;
}

/** permission.Effect: Effect is what a rule does to the calls it matches. */
export type Effect = "allow" | "ask" | "deny";

/** trace.Error: Error is a failure of the run itself (not of a tool). */
export interface ErrorPayload {
  code: string;
  message: string;
  /** Fit says what did not fit, for Code "does_not_fit". */
  fit?: Fit;
}

/** trace.Event: Event is one entry of a session's append-only log. Seq is assigned by the
 * store when the event is committed and is unique and increasing within a
 * session. Run counts user messages; Round counts model requests within a run. */
export interface EventEnvelope {
  session_id: string;
  seq: number;
  kind: Kind;
  time: string;
  run: number;
  round: number;
  payload: JsonValue;
  /** Agent is "" for the session's own loop, and for an event of a
   * sub-agent's nested run the id of the task call that started it
   * (a deeper one's is the path of task call ids, "c1/c2": see SubAgent).
   * A run's history, its state and its open calls are read from its own
   * events only (Own). */
  agent?: string;
  /** Preview is set only on an event cut for the window (see Preview):
   * the payload's fields that were cut, by JSON Pointer, with the
   * length of the whole. The log never holds it. */
  preview?: Record<string, Cut>;
}

/** trace.FileChange: FileChange is one file a tool changed. Before is nil when the file did
 * not exist; After is nil when the tool removed it. */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
}

/** session.FileNote: FileNote is one file and what happened to it. */
export interface FileNote {
  path: string;
  note: string;
}

/** main.FilesWaiting: FilesWaiting says that putting back or copying the files of a session
 * waits for Commands commands (of other sessions, or calls of its MCP
 * servers) to end in its workspace; 0 once it waits no more. */
export interface FilesWaiting {
  session: string;
  commands: number;
}

/** trace.Fit: Fit is what a prompt needed against the context it was given: Loupe's
 * token estimate of the whole prompt and of its biggest parts, and the
 * ways out in words. */
export interface Fit {
  needed: number;
  num_ctx: number;
  parts: FitPart[] | null;
  /** Largest names the single biggest message (such as one tool
   * result), which is often the one to drop. */
  largest?: FitPart;
  ways_out: string[] | null;
}

/** trace.FitPart: FitPart is one part of a prompt with its token estimate. */
export interface FitPart {
  name: string;
  tokens: number;
}

/** session.Fork: Fork is what a fork is made with: the session and the event it forks at
 * (its log is the parent's up to and including At), and what the fork
 * goes on with. Empty fields keep the parent's. */
export interface Fork {
  session: string;
  at: number;
  /** Model and Host are the fork's model and Ollama host ("": the
   * parent's). */
  model?: string;
  host?: string;
  /** Tools are the tools the fork offers (nil: the parent's). */
  tools?: string[];
  /** Files says where the fork works: FilesHere (the parent's folder as
   * it is now) or FilesCopy (a new folder holding the workspace as it
   * was at the fork point, restored from the snapshots). */
  files?: string;
  /** Folder is the new folder of a FilesCopy ("": next to the
   * workspace, named after it). It must not exist yet. */
  folder?: string;
}

/** session.ForkFiles: ForkFiles says where a fork works and what its files are against the
 * fork point, from the snapshots the tool results keep (each changed
 * file's content before and after). */
export interface ForkFiles {
  workspace: string;
  copy: boolean;
  /** Changed are the files the tools changed after the fork point, which
   * a fork in the same folder finds as they are now. */
  changed: string[] | null;
  /** Restored are the files a copy holds as they were at the fork point;
   * NotRestored those it could not put back, each with why (the
   * snapshots cannot say what it held then, or what is there now is no
   * file); NotCopied what the copy of the folder left out. */
  restored: FileNote[] | null;
  not_restored: FileNote[] | null;
  not_copied: FileNote[] | null;
  /** Commands are the commands that ran after the fork point (the seq
   * of each result): what they changed is in no snapshot, so a copy
   * holds it as it is now. */
  commands: number[] | null;
}

/** session.ForkPreview: ForkPreview is what the fork dialog shows before a fork: whether the
 * point can be forked at, the files changed since it, the commands run
 * since, and where a copy would go. */
export interface ForkPreview {
  at: number;
  /** Problem is why there is no fork at At ("": there is one). */
  problem?: string;
  workspace: string;
  changed: string[] | null;
  commands: number[] | null;
  /** CopyFolder is where "A copy as it was then" goes unless told. */
  copy_folder: string;
  /** Pause is where the fork waits when it is made ("": it waits for a
   * message). */
  pause?: string;
}

/** session.Forked: Forked is what a fork made: the new session and what was done with the
 * files. */
export interface Forked {
  summary: Summary;
  files: ForkFiles;
}

/** permission.Grant: Grant is a user's answer remembered beyond one call: the session layer
 * stores session and workspace grants and passes them back in
 * Policy.Grants. */
export interface Grant {
  rule: Rule;
  scope: Scope;
  /** Target is what the path of a path grant named when it was given:
   * TargetFile (it covers that path only: a directory made later under
   * the same name is not covered) or TargetDir (the directory and what
   * is in it). Grants stored before it was recorded are read by their
   * tool (GrantTarget). */
  target?: string;
}

/** store.Hit: Hit is one event whose text holds the query. */
export interface Hit {
  seq: number;
  kind: Kind;
  run: number;
  round: number;
  time: string;
  /** Snippet is the text around the first match, in pieces; the pieces
   * that are the query are marked. Plain text, nothing to unescape. */
  snippet: SnippetPart[] | null;
}

/** hooks.Hook: Hook is one configured hook. */
export interface Hook {
  /** Name is how the timeline names it; empty: its command. */
  name?: string;
  event: string;
  /** Matcher picks the tools it runs for (before_tool, after_tool,
   * after_edit): a tool name, a glob (`*_file`), or several joined by
   * `|`. Empty: every tool. */
  matcher?: string;
  /** Command is a shell command, run in the workspace, in the sandbox. */
  command: string;
  /** TimeoutS bounds it in seconds (0: DefaultTimeout); at the bound it
   * and everything it started are killed. */
  timeout_s?: number;
  /** OnFailure is FailBlock (the default) or FailContinue. */
  on_failure?: string;
}

/** trace.HookRun: HookRun records one run of a hook: what it was given and what it
 * answered. Stdout and Stderr are as much as Loupe keeps of them (see
 * Cut). */
export interface HookRun {
  /** Hook is the hook's name (its command when it has none), Event the
   * event it ran on, Command what ran. */
  hook: string;
  event: string;
  command: string;
  /** CallID and Tool are the call it ran for (tool events). */
  call_id?: string;
  tool?: string;
  /** Input is the JSON it read on stdin. */
  input: JsonValue;
  stdout: string;
  stderr: string;
  exit_code: number;
  timed_out?: boolean;
  /** Cut says the output was longer than Loupe keeps. */
  cut?: boolean;
  /** Error says why it could not run (the sandbox refused it). */
  error?: string;
  /** Outcome is HookPassed, HookBlocked, HookFailed or
   * HookFailedContinued. */
  outcome: string;
  /** Decision is what a before_tool hook decided (allow, deny, ask; ""
   * when it said nothing), Reason why, as the model or the question
   * reads it. */
  decision?: string;
  reason?: string;
  duration_ms: number;
}

/** main.HostCheck: HostCheck is what an Ollama host answered when asked its version. */
export interface HostCheck {
  host: string;
  reachable: boolean;
  version: string;
  /** Message says what went wrong and what to do, when not reachable. */
  message: string;
}

/** settings.HostChoice: HostChoice is the Ollama host a process talks to and which of the
 * places that can name one gave it, with the others that name one, so
 * Settings can say which wins. */
export interface HostChoice {
  /** Host is the normalised base URL used. */
  host: string;
  /** From is HostFromFlag, HostFromSetting, HostFromEnv or HostFromDefault. */
  from: string;
  /** Flag and Env are what --host and OLLAMA_HOST name, normalised; ""
   * when not given. */
  flag: string;
  env: string;
}

/** settings.HostProfile: HostProfile is an Ollama server under a name of the user's ("gpu-box"
 * for http://10.0.0.5:11434). A session started on it keeps the name, so
 * editing the address in Settings moves the session's later runs too. */
export interface HostProfile {
  name: string;
  url: string;
}

/** session.ImportResult: ImportResult is what an import did. */
export interface ImportResult {
  /** Session is the imported session as stored (when skipped: the one
   * the database already had under that id). */
  session: Summary;
  /** Skipped is set when the session was there already and ImportSkip
   * left it. */
  skipped: boolean;
  /** Events is how many events were imported. */
  events: number;
  /** Clash is set, and nothing imported, when the window's import finds
   * the session there already (Manager.Import). */
  clash?: Clash;
  /** Notices say what of the file was not taken as it is (the Ollama
   * host it names, say). */
  notices?: NoticePayload[];
}

/** trace.Instructions: Instructions is the part of a system prompt that holds a workspace's
 * instructions file: System[Start:Start+Len], in bytes, delimiters and
 * any note of a cut included. */
export interface Instructions {
  /** Source is the file, relative to the workspace ("AGENTS.md"). */
  source: string;
  start: number;
  len: number;
  /** Bytes is the file's size; Cut says only its start was added. */
  bytes: number;
  cut?: boolean;
}

/** trace.Kind: Kind names an event kind. Every kind has one payload type below
 * (Payloads), which the window's types are generated from. */
export type Kind = "user_message" | "model_request" | "model_response" | "tool_call" | "permission" | "tool_result" | "notice" | "error" | "run_end" | "checkpoint" | "edit" | "restore" | "compaction" | "hook_run";

/** llm.ToolCall: ToolCall is one call the model asked for. Args are kept as the raw JSON
 * object the model produced, in its key order, so that what is shown and
 * re-sent is exactly what the model wrote. */
export interface LlmToolCall {
  id: string;
  index: number;
  name: string;
  args: JsonValue;
}

/** localollama.State: State is what Loupe knows of the Ollama on this machine, for a host. */
export interface LocalOllama {
  /** OnThisMachine: the host is a loopback address, so the ollama here
   * is the one that serves it, and Loupe can start it. */
  on_this_machine: boolean;
  /** Installed: the ollama program was found (Binary), of BinaryVersion
   * ("" when it cannot tell). */
  installed: boolean;
  binary: string;
  binary_version: string;
  /** StartedByLoupe: the server at the host is one Loupe started, and
   * stops when it exits. */
  started_by_loupe: boolean;
  /** LogPath is where a server Loupe starts writes its output. */
  log_path: string;
  /** Install says how to get Ollama (set when it is not installed), and
   * InstallURL is its download page. */
  install: string;
  install_url: string;
  /** LastError is why Loupe's last start failed, "" once one works. */
  last_error: string;
}

/** mcp.Grant: Grant is what the user lets a stdio server do beyond what a confined
 * command may, but for writes: the workspace is read-only to a server. */
export interface MCPGrant {
  /** Network lets it reach the network (a command's setting does not
   * count for it). */
  network?: boolean;
  /** Paths are the files and folders inside the workspace it may write:
   * relative to the workspace, or absolute. */
  paths?: string[];
  /** Read are absolute paths outside the workspace it may read (its own
   * files: a script's folder, a data set), as a workspace's exposed
   * paths are for commands. Its command, given as an absolute path, is
   * readable without it. */
  read?: string[];
}

/** mcp.Reach: Reach is what one enabled server can do on this machine, as
 * Protections lists it (nothing is started to say it). */
export interface MCPReach {
  name: string;
  /** "global" or "workspace" */
  scope: string;
  /** Confined: a stdio server, run in the sandbox commands run in. A
   * URL server runs elsewhere: Loupe sends it the tool calls only. */
  confined: boolean;
  /** Detail says it in words. */
  detail: string;
  grant: MCPGrant;
}

/** mcp.ServerInfo: ServerInfo is a server as the window lists it: never its env or header
 * values, only their names. */
export interface MCPServerInfo {
  name: string;
  /** "global" or "workspace" */
  scope: string;
  transport: string;
  describe: string;
  env_keys: string[] | null;
  header_keys: string[] | null;
  /** Granted is what a stdio server may do in the sandbox beyond
   * reading the workspace (Grant.Describe); "" for a URL server. */
  granted: string;
  state: string;
  error?: string;
  start_ms: number;
  /** Tokens is what the server's tool schemas add to every request. */
  tokens: number;
  /** Measured: Ollama counted every offered tool's Tokens; false: some
   * or all are Loupe's estimate. */
  measured: boolean;
  tools: MCPToolInfo[] | null;
  /** Log is the file its stderr goes to ("" for a URL server). */
  log: string;
}

/** mcp.ToolInfo: ToolInfo is one of a server's tools, with its schema's cost. */
export interface MCPToolInfo {
  name: string;
  summary: string;
  tokens: number;
  /** Measured: Ollama counted Tokens; false: Loupe's estimate. */
  measured: boolean;
  /** Offered is false for a tool Loupe leaves out (its schema cannot be
   * checked); Why says why. */
  offered: boolean;
  why?: string;
}

/** agent.MessageEdit: MessageEdit replaces the content of the history message from event Seq. */
export interface MessageEdit {
  seq: number;
  content: string;
}

/** llm.Metrics: Metrics are the timings and counts Ollama reports with the last chunk. */
export interface Metrics {
  prompt_eval_count: number;
  eval_count: number;
  total_duration: number;
  load_duration: number;
  prompt_eval_duration: number;
  eval_duration: number;
  /** TimeToFirstToken is measured by Loupe: request sent → first delta. */
  time_to_first_token: number;
}

/** permission.Mode: Mode is the session-wide permission mode. */
export type Mode = "ask_all" | "ask" | "auto";

/** session.ModelCheck: ModelCheck is what the window asks when a model is picked for a
 * session: the model and its host, the workspace (its system prompt names it), the
 * tools the session would offer (nil: every tool) and whether to send
 * the model one small request. */
export interface ModelCheck {
  model: string;
  /** Host is the Ollama host the session would run on, as the
   * new-session page names it ("": the local one). */
  host?: string;
  workspace: string;
  tools?: string[];
  round_trip: boolean;
}

/** ollama.ModelInfo: ModelInfo describes an installed model. */
export interface ModelInfo {
  name: string;
  size: number;
  family: string;
  parameter_size: string;
  quantization: string;
  capabilities: string[] | null;
  /** ContextLength is the model's trained context, 0 if it reports none. */
  context_length: number;
  modified_at: string;
}

/** trace.ModelRequest: ModelRequest records one request exactly enough to rebuild its body.
 * Nothing in it grows with the session: the tools offered are a tool set
 * stored once per session and named by ToolSet, and the history is the
 * previous request's (HistoryBase) plus the events appended since
 * (HistoryAdded), projected by History. */
export interface ModelRequestPayload {
  model: string;
  options: Options;
  think?: boolean;
  /** Truncate is what the request asked of Ollama about a prompt over
   * num_ctx: false (refuse it) since Loupe stopped silent cuts; absent
   * in logs written before, whose requests left Ollama's default. */
  truncate?: boolean;
  system: string;
  /** Purpose is PurposeCompaction for the request that asks the model to
   * summarise the older history (its answer becomes a compaction, not
   * a message); empty for a round's request. */
  purpose?: string;
  /** Compact names, for a compaction request, the last history event it
   * asks to summarise: the conversation from its start through it. */
  compact?: number;
  /** Instructions is where the workspace's AGENTS.md sits in System, when
   * it was added to it. */
  instructions?: Instructions;
  /** Host is the Ollama server the request was sent to (its base URL);
   * HostName the name Settings gives it, "" for the local host or an
   * address given as such. Absent in logs written before. */
  host?: string;
  host_name?: string;
  /** ToolSet names the session's stored tool set sent with the request
   * (0: no tools); ToolNames are its tools' names, for reading the log. */
  tool_set?: number;
  tool_names?: string[];
  /** HistoryBase is the seq of the session's previous model_request, whose
   * history this one extends with the events HistoryAdded names (0: the
   * history starts here). */
  history_base?: number;
  history_added: number[] | null;
  /** MessageCount includes the system message. */
  message_count: number;
  /** PromptEstimate is Loupe's own token estimate, shown beside the
   * count Ollama reports: Split's sum when the request has one (about 4
   * bytes a token until the session has a count, then at the rate its
   * counts show), else about 4 bytes a token. */
  prompt_estimate: number;
  /** Split is that estimate by part (system prompt, tool schemas,
   * history, new observations); absent in logs written before the
   * context meter. */
  split?: PromptSplit;
  /** Tools and HistorySeqs are how logs written before tool sets and
   * history deltas recorded a request: every tool's schema, and every
   * history event's seq, in each request. They are read, never written. */
  tools?: ToolSpec[];
  history_seqs?: number[];
}

/** trace.ModelResponse: ModelResponse is the model's whole message for one request. */
export interface ModelResponsePayload {
  request_seq: number;
  content: string;
  thinking?: string;
  tool_calls?: LlmToolCall[];
  done_reason: string;
  /** Incomplete marks a message that did not end normally (cut stream,
   * error, cancel, or done_reason "length"). Its text is kept and shown as
   * partial; its tool calls are never run and never enter the history. */
  incomplete: boolean;
  metrics: Metrics;
  /** Context is the context meter of the request: Ollama's count against
   * the context, split by part (see Meter); absent in logs written
   * before the meter. */
  context?: ContextMeter;
  chunks: number;
  raw?: JsonValue;
  /** Rescued are the calls Loupe recovered from the text or whose
   * arguments it repaired; Printed is then the content as the model
   * wrote it (Content has the recovered calls taken out). */
  rescued?: Rescue[];
  printed?: string;
  /** Unrecovered is set on an answer without calls whose text plainly
   * holds one that Loupe did not read as a call: the run then ends
   * printed_call, never answered. */
  unrecovered?: Unrecovered;
}

/** trace.Notice: Notice is a harness decision worth seeing: a cap hit, a retry, a
 * suspected truncation, a repaired history. */
export interface NoticePayload {
  code: string;
  message: string;
  /** Raw is what an imported file held that Loupe has no event for (a
   * record, a block, a field), as the file wrote it: kept, not dropped. */
  raw?: JsonValue;
}

/** llm.Options: Options are the generation options Loupe sets on every request. NumCtx is
 * always set explicitly so Ollama never falls back to its silent default. */
export interface Options {
  num_ctx: number;
  temperature: number;
}

/** session.Outcome: Outcome is what a command gives back: the session's summary when the
 * command changed it (created, renamed by its first message, stepping…),
 * what a restore did. */
export interface Outcome {
  summary?: Summary;
  restore?: RestoreResult;
  /** Compaction is what Compact now recorded. */
  compaction?: CompactionPayload;
}

/** tools.OutputPiece: OutputPiece is a stretch of a running call's output from one stream. */
export interface OutputPiece {
  stream: string;
  text: string;
}

/** main.PendingDelete: PendingDelete is a delete that UndoDelete can take back until Until. */
export interface PendingDelete {
  session: string;
  until: string;
}

/** trace.PendingMessage: PendingMessage is one history message of a pending request, with the
 * event it comes from, which is what an edit of it names. */
export interface PendingMessage {
  seq: number;
  role: string;
  content: string;
  tool_calls?: LlmToolCall[];
  tool_call_id?: string;
  tool_name?: string;
}

/** trace.Pending: Pending is a request that is built but not sent yet. */
export interface PendingRequest {
  model: string;
  system: string;
  options: Options;
  tools: string[] | null;
  messages: PendingMessage[] | null;
  /** Offer is every tool the run can offer, in the order it offers them
   * (the session's choice of tools), and Withheld says of those that may
   * not be switched on at the pause why not (set to never, or denied in
   * this session): what a tools edit chooses among. A tool withheld may
   * still be offered (Tools), and switched off. Pauses recorded before
   * tools could be switched at a pause have neither: nothing can be
   * switched on there. */
  offer?: string[];
  withheld?: Record<string, string>;
}

/** trace.Permission: Permission records who decided whether a call may run, or (Decision
 * Ask) that a person is asked. */
export interface PermissionPayload {
  call_id: string;
  tool: string;
  decision: string;
  /** By says who or which rule decided; the UI shows "Allowed by <By>".
   * For an ask it names the rule or setting that asks, if any. */
  by: string;
  /** Reasons say why the policy asked (or refused), in plain words. */
  reasons?: string[];
  /** Summary and Display are what the question shows (on ask): the
   * call in a line, and the diff or command it would run. */
  summary?: string;
  display?: Display;
  /** OnceOnly is set on an ask whose answer cannot be remembered. */
  once_only?: boolean;
  /** Command and Paths are what the policy decided on (on ask): what an
   * answer remembered for the session or the workspace would cover. */
  command?: string;
  paths?: string[];
}

/** permission.Call: Call is what the policy knows about one tool call. Build it with
 * CallFor: only the tool's own declared arguments go into it. */
export interface PolicyCall {
  tool: string;
  /** ReadOnly comes from the tool's definition, never from the model. */
  read_only: boolean;
  /** Command is run_command's command. */
  command?: string;
  /** Paths are the tool's path arguments, cleaned, slash-separated,
   * relative to the workspace (or absolute, as the model sent them). */
  paths?: string[];
}

/** agent.PrintedCall: PrintedCall is a tool call a model printed as text instead of asking for
 * it, read the way the loop recovers such calls. */
export interface PrintedCall {
  name: string;
  args?: JsonValue;
  /** Form is how the model wrote it: "tool_call tag", "code fence",
   * "json"… */
  form: string;
}

/** trace.Parts: Parts is a prompt by part, in tokens: the system prompt, the tool
 * schemas, the history (the conversation up to the previous request,
 * the model's answers included) and the new observations (the tool
 * results and the user's message added since the previous request). */
export interface PromptParts {
  system: number;
  tools: number;
  history: number;
  new: number;
}

/** trace.Split: Split is Loupe's estimate of a request's prompt, by part, recorded with
 * the request: the JSON size of each part as sent, at BytesPerToken. */
export interface PromptSplit {
  system: number;
  tools: number;
  history: number;
  new: number;
  /** Bytes is the size of the whole prompt as sent (messages and tool
   * schemas as JSON). */
  bytes: number;
  /** BytesPerToken is the rate of the estimate: DefaultBytesPerToken
   * until the session has a full count of Ollama's for this model, then
   * the latest such count's (the model_response CalibratedBy). */
  bytes_per_token: number;
  calibrated_by?: number;
}

/** sandbox.Protection: Protection is one protection and whether it is active on this machine. */
export interface Protection {
  /** Name is a short label for a settings page ("Writes"). */
  Name: string;
  /** Active says whether commands get it. */
  Active: boolean;
  /** Detail says, in plain words, what is enforced and how, or why not. */
  Detail: string;
}

/** sandbox.Report: Report is Protections as the window shows them: what the probe found,
 * with the judgement made of it here (the order a settings page lists
 * them in, whether commands count as sandboxed, what they lack), so that
 * the window says what the policy decides and never works it out again. */
export interface Protections {
  /** LandlockABI is the kernel's Landlock ABI version; 0 without Landlock. */
  LandlockABI: number;
  /** Writes: only the workspace (less its protected paths) and the
   * command's own temp and home are writable (Landlock, read-only
   * mounts). */
  Writes: Protection;
  /** Network: blocked unless allowed (network namespace or Landlock). */
  Network: Protection;
  /** Processes: nothing a command starts outlives it, and it cannot
   * signal processes outside (PID namespace). */
  Processes: Protection;
  /** Secrets: nothing of the user's home or other projects is visible,
   * Loupe's files hidden, /proc shows
   * only the command's processes (mount namespace), environment scrubbed. */
  Secrets: Protection;
  /** Sockets: no Unix socket outside the sandbox can be reached (the
   * view has no /tmp, /run or home of the host; abstract sockets are
   * per network namespace, or scoped by Landlock). */
  Sockets: Protection;
  /** IPC: the kernel's shared objects of the user's other programs
   * (SysV shared memory, message queues and semaphores, POSIX message
   * queues: an X11 server's shared-memory images among them) are out of
   * reach (IPC namespace). Its Detail also says what is still shared
   * with the host: the clock, /sys, the host name and cgroups where
   * their namespaces are missing. */
  IPC: Protection;
  /** Limits: file size, memory, process count, core dumps. Not
   * required for Sandboxed. */
  Limits: Protection;
  /** List is the protections in the order of List. */
  list: Protection[] | null;
  /** Sandboxed is Sandboxed(): without it the policy asks before every
   * command and offers no answer to remember. */
  sandboxed: boolean;
  /** Missing are the required protections commands lack, in List's
   * order; Why says them in plain words ("writes: …; network: …"), as
   * Summary does. */
  missing: Protection[] | null;
  why: string;
  summary: string;
}

/** ollama.PullProgress: PullProgress is how far a pull has come, added up over the model's
 * layers: Ollama reports each layer (blob) on its own, one after the other,
 * and the window and `loupe pull` show one bar. */
export interface PullProgress {
  model: string;
  /** Status is Ollama's word for the step: "pulling manifest", "pulling
   * 6a0746a1ec1a" (a layer), "verifying sha256 digest", "writing
   * manifest", "success". */
  status: string;
  /** Completed and Total are bytes, over the layers Ollama has named so
   * far: the weights come first and are nearly all of a model, so the
   * total hardly grows after them. */
  completed: number;
  total: number;
  /** Percent is Completed of Total, 0 to 99 until the pull is done, then
   * 100 (0 while Total is unknown). */
  percent: number;
  /** Done: the model is installed. */
  done: boolean;
}

/** readiness.Item: Item is one line of the checklist. */
export interface ReadinessItem {
  check: string;
  status: string;
  /** Detail says what was found; Fix what to do about it ("" when all is
   * well). */
  detail: string;
  fix?: string;
}

/** readiness.Report: Report is the checklist for one model. */
export interface ReadinessReport {
  model: string;
  capabilities: string[] | null;
  context_length: number;
  /** NumCtx is what a run would send: the model's context capped by the
   * setting. */
  num_ctx: number;
  /** Fixed is the estimate of what every request sends before any
   * conversation: the system prompt and the tool schemas (SystemTokens,
   * ToolTokens, each tool in Tools). */
  fixed_tokens: number;
  system_tokens: number;
  tool_tokens: number;
  tools: ToolCost[] | null;
  /** ToolsMeasured: ToolTokens is Ollama's count, not the estimate. */
  tools_measured: boolean;
  /** Off are the MCP tools switched off, with what each would cost. */
  off?: ToolCost[];
  items: ReadinessItem[] | null;
  reply?: Reply;
  /** Ready: no check failed. */
  ready: boolean;
}

/** session.RenderedPrompt: RenderedPrompt is a stored request as the model reads it: Ollama's
 * rendering of the body RawRequest rebuilds, made now with the model's
 * current chat template. The log keeps the request, not its rendering: a
 * template changed since (the model pulled again) renders differently,
 * which Digest and At let the window say. */
export interface RenderedPrompt {
  model: string;
  /** Text is Ollama's _debug_info.rendered_template. */
  text: string;
  /** Digest is the installed model's digest (from /api/tags), "" when the
   * list did not name it: which template did the rendering. */
  digest?: string;
  /** At is when Ollama rendered it (its created_at). */
  rendered_at: string;
  seq: number;
}

/** readiness.Reply: Reply is what the model answered the round trip: a real call ("call"),
 * a call printed as text ("printed"), or neither ("none"). */
export interface Reply {
  kind: string;
  content: string;
  calls?: LlmToolCall[];
  printed?: PrintedCall[];
}

/** agent.RequestEdit: RequestEdit changes a pending request: nil fields stay as they are.
 * System, Options and Tools hold for the rest of the run; Tools names the
 * tools to offer, among those the pause says the run can offer
 * (trace.Pending.Offer): the others are switched off. */
export interface RequestEdit {
  system?: string;
  options?: Options;
  tools?: string[];
  messages?: MessageEdit[];
}

/** trace.Rescue: Rescue says how Loupe made a call out of what a model wrote: Recovered
 * when the call was printed as text (Form: "tool_call tag", "code fence",
 * "json"; Text the original span), Repaired what a tolerant parse of its
 * arguments fixed (Original the arguments as written). Unparsed marks a
 * recovered call whose arguments could not be read: it fails validation. */
export interface Rescue {
  call_id: string;
  recovered?: boolean;
  form?: string;
  text?: string;
  repaired?: string;
  original?: string;
  unparsed?: boolean;
}

/** session.RestoreFiles: RestoreFiles puts the files the session's tools changed at or after
 * event Seq back as they were before it (Force: over changes made outside
 * Loupe since). */
export interface RestoreFilesCommand {
  session: string;
  seq: number;
  force?: boolean;
}

/** trace.Restore: Restore records files put back as they were before event ToSeq (or
 * before run Run, for "undo this turn"). */
export interface RestorePayload {
  to_seq: number;
  run?: number;
  /** Restored are the paths written back (or removed, when they did not
   * exist before). */
  restored: string[] | null;
  /** Overwritten are paths changed outside Loupe since, which the user
   * chose to overwrite. */
  overwritten?: string[];
  /** Changes record what each file held before and after the restore,
   * so that a later restore knows the files' state. */
  changes?: FileChange[];
}

/** session.RestoreResult: RestoreResult says what a restore did, or, when Done is false, which
 * files need the user's yes before anything is written. */
export interface RestoreResult {
  done: boolean;
  restored: string[] | null;
  conflicts: Conflict[] | null;
}

/** trace.RoundFigures: RoundFigures is one round of a session: its model request (Seq, where
 * the session opens at it), the tokens and times of its answers (a
 * compaction's summary in the round included, as the timeline's totals
 * count it), its calls, and how it ended. */
export interface RoundFigures {
  run: number;
  round: number;
  seq: number;
  model: string;
  /** PromptTokens and OutputTokens are Ollama's counts
   * (prompt_eval_count, eval_count). */
  prompt_tokens: number;
  output_tokens: number;
  /** ModelMs is Ollama's total_duration; ToolMs the calls' durations
   * summed; WallMs from the request to the round's last event. */
  model_ms: number;
  tool_ms: number;
  wall_ms: number;
  calls: CallFigure[] | null;
  /** Denials are calls the policy or the user refused; Errors the calls
   * that failed otherwise and the run's own errors in the round. */
  denials: number;
  errors: number;
  /** Outcome is OutcomeTools, OutcomeRunning, or the reason the run ended
   * in this round (End*). */
  outcome: string;
  /** Answer is the start of the answer's text (the whole is in the log). */
  answer?: string;
  /** Incomplete marks an answer that did not finish. */
  incomplete?: boolean;
  /** Compacted marks a round that summarised the older history first. */
  compacted?: boolean;
}

/** permission.Rule: Rule matches calls and says what to do with them. At most one of
 * Command, CommandLine and Path is set; a rule with none of them matches
 * every call of Tool.
 *
 *   - Command is a pattern for one simple command's words, e.g.
 *     "go test ./..." or "git log *". A word that is a bare * at the end
 *     matches any further words (none included); elsewhere a bare *
 *     matches one word; a * inside a word matches any characters in that
 *     word. Quoting works as in the shell ('a b' is one word; '*' is a
 *     literal star). It applies to run_command, to every command the
 *     classifier finds in it (each part of a chain, the command a wrapper
 *     runs). Allow rules must match the command name exactly; deny and
 *     ask rules whose name has no slash also match it by base name
 *     (deny "rm *" matches "/bin/rm -r x").
 *   - CommandLine matches one exact command line. An allow rule matches
 *     only the same text (spaces, tabs and newlines at either end aside):
 *     the parser's printed form can be equal for two lines bash reads
 *     apart (it splits words at a carriage return, bash does not), and an
 *     allow line vouches for what the classifier cannot see. Deny and ask
 *     lines also match a line the parser prints the same way. The
 *     broker's grants for run_command use it.
 *   - Path is a doublestar glob relative to the workspace. As in
 *     .gitignore, a pattern without a slash matches a name at any depth
 *     (".env*" matches "sub/.env.local"); one with a slash is anchored at
 *     the workspace root (a leading "/" only anchors). A pattern that
 *     matches a directory matches everything under it. Deny, ask and
 *     protected patterns match case-insensitively; allow patterns do not.
 *     An allow rule needs every path of a call to match; deny and ask
 *     rules need one. */
export interface Rule {
  effect: Effect;
  /** Tool limits the rule to one tool; empty means any tool (a Command
   * or CommandLine rule implies run_command). */
  tool?: string;
  command?: string;
  command_line?: string;
  path?: string;
}

/** permission.RuleCheck: RuleCheck is what the settings page shows of a rule as it is typed: the
 * rule as Loupe names it (String) and what is wrong with it, in
 * Validate's words ("" when nothing is), so that the page judges a rule
 * exactly as saving it will. */
export interface RuleCheck {
  text: string;
  problem: string;
}

/** permission.RuleLimits: RuleLimits says, for the settings page, what a rule cannot hold and
 * which rules would hold it whatever runs. */
export interface RuleLimits {
  /** Limits are plain sentences, shown under the rule. */
  limits?: string[];
  /** PathRules are deny path rules for the paths a command rule names
   * ("cat .env" → deny .env). They hold for every tool and every
   * command, since commands do not see a denied path: the page offers
   * to add them (Limits does not repeat them). */
  path_rules?: Rule[];
}

/** trace.RunEnd: RunEnd closes a run with its reason. */
export interface RunEndPayload {
  reason: string;
  detail?: string;
  final_text?: string;
  rounds: number;
}

/** permission.Scope: Scope is how long a user's answer counts. */
export type Scope = "once" | "session" | "workspace";

/** store.SearchFilter: SearchFilter narrows a search; a zero field does not. */
export interface SearchFilter {
  /** Model, Workspace and Outcome match the session's model, workspace
   * folder and the reason its last run ended (Session.LastReason) exactly. */
  model?: string;
  workspace?: string;
  outcome?: string;
  /** From and To bound when the matching event was written: From <= time
   * < To. */
  from?: string;
  to?: string;
}

/** store.SearchResults: SearchResults are the hits of a query, grouped by session: the sessions
 * in the order of their first hit (see Order), each one's hits in log
 * order. */
export interface SearchResults {
  query: string;
  sessions: SessionHits[] | null;
  /** More is set when there were more hits than the limit. */
  more: boolean;
  /** Order says how the hits were chosen: OrderBest or OrderNewest. */
  order: string;
  /** Partial is set while older events are still being indexed: a hit
   * among them is not found yet. Status says how far indexing is. */
  partial: boolean;
  status: SearchStatus;
}

/** store.SearchStatus: SearchStatus is how much of the log search covers: Indexed of Total
 * events. Older events (written before search, or by an older Loupe) are
 * indexed in the background; until they all are, results are partial. */
export interface SearchStatus {
  indexed: number;
  total: number;
  /** PairsPending is how many events indexed before the index of word
   * pairs existed are still to get theirs (about: an upper bound, 0 when
   * done). Results are whole meanwhile; a phrase of several words is
   * slower to find until it is 0. */
  pairs_pending?: number;
}

/** session.Send: Send starts a run with the user's message. */
export interface SendCommand {
  session: string;
  text: string;
}

/** session.Detail: Detail is an opened session as the window first gets it: its summary,
 * and its log with each event of an ended run cut to the payload a card
 * draws (trace.Preview; Payload gives an event whole). Questions waiting
 * for the user and a pause are events of the open run, which comes whole.
 * The tools a request offered are in its tool_names; their schemas are in
 * the body RawRequest rebuilds. */
export interface SessionDetail {
  summary: Summary;
  events: EventEnvelope[] | null;
}

/** store.SessionHits: SessionHits are one session's hits, with what the list shows of it. */
export interface SessionHits {
  session_id: string;
  title: string;
  model: string;
  workspace: string;
  last_reason: string;
  updated_at: string;
  hits: Hit[] | null;
}

/** session.SetBreakpoints: SetBreakpoints sets where the session pauses when not stepping. */
export interface SetBreakpointsCommand {
  session: string;
  breakpoints: Breakpoints;
}

/** session.SetModel: SetModel changes the model of the session's next run. */
export interface SetModelCommand {
  session: string;
  model: string;
}

/** session.SetStepping: SetStepping turns Step mode on or off. */
export interface SetSteppingCommand {
  session: string;
  on?: boolean;
}

/** session.SetTools: SetTools changes the tools the session offers (nil: every tool, empty:
 * none). */
export interface SetToolsCommand {
  session: string;
  tools?: string[];
}

/** settings.Settings: Settings are the user's choices that shape every run. */
export interface SettingsWire {
  /** MaxRounds caps model requests per run. */
  max_rounds: number;
  /** NumCtxCap caps the context length sent as num_ctx; the model's own
   * context length is used when it is smaller. */
  num_ctx_cap: number;
  temperature: number;
  permission_mode: Mode;
  /** Tools sets a tool to always, ask or never; Rules allow, ask or
   * deny commands and paths (deny wins). */
  tools: Record<string, ToolSetting> | null;
  rules: Rule[] | null;
  /** SystemPrompt is a text/template; {{.Workspace}} is the folder. */
  system_prompt: string;
  /** StepMode is the Step mode a new session starts with; each session
   * keeps its own from then on. */
  step_mode: boolean;
  /** FirstTokenTimeoutS bounds, in seconds, the wait for the first byte
   * of an answer (it includes loading the model); StallTimeoutS the wait
   * between two pieces of it. 0 waits without a bound. */
  first_token_timeout_s: number;
  stall_timeout_s: number;
  /** OllamaHost is where Ollama is, as the user typed it and Save
   * normalised it; "" leaves it to OLLAMA_HOST or DefaultHost. A --host
   * flag wins over it (see ChooseHost). */
  ollama_host: string;
  /** Hosts are other Ollama servers, each under a name, that a new
   * session may be started on instead of the local one (OllamaHost). */
  hosts: HostProfile[] | null;
  /** RecoverTextCalls turns tool calls a model printed as text (JSON in
   * the answer, in a code fence or between <tool_call> tags) into calls. */
  recover_text_calls: boolean;
  /** RepeatLimit is how many rounds in a row may ask for the same calls
   * before Loupe tells the model; one more and the run stops. */
  repeat_limit: number;
  /** SubAgents offers the task tool: the model may hand a goal to a
   * sub-agent, a nested run with read-only tools by default. */
  sub_agents: boolean;
  /** Compact turns compaction on: when a prompt reaches CompactAtPercent
   * of num_ctx the model summarises the older turns, and a prompt Ollama
   * refuses as too long is compacted and sent again. CompactKeepRounds
   * are the latest rounds always kept as they are. Compact now works
   * whether it is on or not. */
  compact: boolean;
  compact_at_percent: number;
  compact_keep_rounds: number;
  /** OTLPEndpoint, when set, is an OTLP/HTTP collector each finished run
   * is sent to as a trace (see session's export of finished runs), in
   * OTLPProtocol (otlp.ProtoBuf when ""); OTLPNoContent leaves out what
   * the user, the model and the tools wrote. "" sends nothing. */
  otlp_endpoint: string;
  otlp_protocol: string;
  otlp_no_content: boolean;
  /** Hooks are the user's hooks, for every workspace (a trusted
   * workspace's own run after them). */
  hooks: Hook[] | null;
}

/** session.Skip: Skip answers the pending call with the user's observation without
 * running it, and goes on. */
export interface SkipCommand {
  session: string;
  text?: string;
  at?: number;
}

/** store.SnippetPart: SnippetPart is a piece of a snippet; Match marks the query's text. */
export interface SnippetPart {
  text: string;
  match?: boolean;
}

/** main.Status: Status tells the UI where Ollama and the database are and whether they
 * work, with what to do when they don't. */
export interface StatusInfo {
  /** OllamaHost is the server the check asked; Hosts says where that
   * host was chosen from, and what else names one. */
  ollama_host: string;
  hosts: HostChoice;
  reachable: boolean;
  version: string;
  message: string;
  db_path: string;
  db_error: string;
  /** Local is the Ollama of this machine: installed or not (and how to
   * get it), whether Loupe can start it for OllamaHost, whether it did. */
  local: LocalOllama;
}

/** session.Step: Step goes on to the next checkpoint. */
export interface StepCommand {
  session: string;
  at?: number;
  /** Into steps into the sub-agent of the task call the run waits
   * before: it pauses where the run does. Without it a step there steps
   * over the sub-agent (it runs to its end as one step). */
  into?: boolean;
}

/** session.StopCall: stopCall stops one running call; the run goes on. */
export interface StopCallCommand {
  session: string;
  call_id: string;
}

/** session.Stop: Stop ends the session's run, and answers once it has ended. */
export interface StopCommand {
  session: string;
}

/** store.Session: Session is one conversation: its metadata and a summary of its log. */
export interface StoredSession {
  id: string;
  title: string;
  workspace: string;
  model: string;
  created_at: string;
  /** UpdatedAt changes with every appended event and every UpdateSession. */
  updated_at: string;
  /** LastReason is the reason of the last run_end event, or "" before the
   * first run and while a run is open. UpdateSession can also set it. */
  last_reason: string;
  /** EventCount is the number of events, which is also the newest seq. */
  event_count: number;
  /** OpenRun is the run that is open (its user_message was appended, its
   * run_end not yet), or 0. */
  open_run: number;
  /** Tools are the tools the session offers its model, by name; nil
   * offers every built-in tool. An empty list offers none (plain chat). */
  tools?: string[];
  /** Host is the Ollama host the session runs on: "" the local one, a
   * name of Settings' named hosts, or an address (see settings.HostRef). */
  host?: string;
  /** Pinned keeps the session on top of the list. */
  pinned: boolean;
  /** CopiedFrom is the session this one is a copy of (CopySession), or
   * "". The source may be gone since. */
  copied_from?: string;
  /** ForkedFrom is the session this one is a fork of (store.Fork), or
   * "", and ForkSeq the parent's last event its log holds: up to there
   * the two logs are the same, byte for byte. The parent may be gone
   * since; its forks are ListForks. */
  forked_from?: string;
  fork_seq?: number;
  /** Rounds is how many requests to the model the log holds, compaction's
   * left out (kept by the database as events arrive: 0009_session_list.sql). */
  rounds: number;
  /** Source is the agent a session was imported from ("claude-code",
   * "codex", "atif"), "" for Loupe's own; SourceID its id there. A
   * session with a source is read-only: its forks go on in Loupe. */
  source?: string;
  source_id?: string;
}

/** session.Summary: Summary is a session as the sidebar shows it: the stored row, with
 * whether a run is going, what it waits for, and how it steps. */
export interface Summary {
  id: string;
  title: string;
  workspace: string;
  model: string;
  created_at: string;
  /** UpdatedAt changes with every appended event and every UpdateSession. */
  updated_at: string;
  /** LastReason is the reason of the last run_end event, or "" before the
   * first run and while a run is open. UpdateSession can also set it. */
  last_reason: string;
  /** EventCount is the number of events, which is also the newest seq. */
  event_count: number;
  /** OpenRun is the run that is open (its user_message was appended, its
   * run_end not yet), or 0. */
  open_run: number;
  /** Tools are the tools the session offers its model, by name; nil
   * offers every built-in tool. An empty list offers none (plain chat). */
  tools?: string[];
  /** Host is the Ollama host the session runs on: "" the local one, a
   * name of Settings' named hosts, or an address (see settings.HostRef). */
  host?: string;
  /** Pinned keeps the session on top of the list. */
  pinned: boolean;
  /** CopiedFrom is the session this one is a copy of (CopySession), or
   * "". The source may be gone since. */
  copied_from?: string;
  /** ForkedFrom is the session this one is a fork of (store.Fork), or
   * "", and ForkSeq the parent's last event its log holds: up to there
   * the two logs are the same, byte for byte. The parent may be gone
   * since; its forks are ListForks. */
  forked_from?: string;
  fork_seq?: number;
  /** Rounds is how many requests to the model the log holds, compaction's
   * left out (kept by the database as events arrive: 0009_session_list.sql). */
  rounds: number;
  /** Source is the agent a session was imported from ("claude-code",
   * "codex", "atif"), "" for Loupe's own; SourceID its id there. A
   * session with a source is read-only: its forks go on in Loupe. */
  source?: string;
  source_id?: string;
  running: boolean;
  /** Standing is what the open run waits for, read from its log:
   * trace.StandingPaused, trace.StandingAsking or "". The window keeps
   * it up to date from the events it gets. */
  standing: string;
  /** Stepping is on when the session pauses at every checkpoint. */
  stepping: boolean;
  breakpoints: Breakpoints;
}

/** session.SystemPrompt: SystemPrompt is the system prompt a run in a workspace starts with, and
 * where the workspace's AGENTS.md sits in it. */
export interface SystemPromptView {
  text: string;
  instructions?: Instructions;
  /** Notice says what went wrong with AGENTS.md (unreadable, cut), for
   * the run's log and for Settings; nil when nothing did. */
  notice?: NoticePayload;
}

/** trace.ToolCall: ToolCall records one call the model asked for and whether it passed
 * validation. It is committed before the tool can start. */
export interface ToolCallPayload {
  call_id: string;
  name: string;
  args: JsonValue;
  valid: boolean;
  /** ErrorKind is ErrUnknownTool or ErrInvalidArgs when Valid is false. */
  error_kind?: string;
  problem?: string;
  /** ReadOnly tells whether the tool only reads (no ask needed by default). */
  read_only: boolean;
  /** Rescue is set for a call recovered from the answer's text or whose
   * arguments were repaired. */
  rescue?: Rescue;
}

/** readiness.ToolCost: ToolCost is one offered tool's schema, as Ollama counted it or as the
 * estimate counts it. */
export interface ToolCost {
  name: string;
  /** Server is the MCP server the tool comes from ("" for a built-in). */
  server?: string;
  tokens: number;
  /** Measured: Ollama counted Tokens; false: Loupe's estimate. */
  measured: boolean;
}

/** session.ToolInfo: ToolInfo is a built-in tool as the window lists it (the new-session
 * checklist, the per-tool settings, the rules editor). */
export interface ToolInfo {
  name: string;
  /** Summary is the first sentence of the description the model reads. */
  summary: string;
  /** PathArg is the argument holding the path the policy judges, "" for
   * a tool that takes none: a path rule can name only a tool that has
   * one. */
  path_arg: string;
  read_only: boolean;
}

/** trace.ToolResult: ToolResult is the observation for one call: Content is exactly what the
 * model sees. */
export interface ToolResultPayload {
  call_id: string;
  name: string;
  content: string;
  is_error: boolean;
  error_kind?: string;
  truncated: boolean;
  bytes: number;
  exit_code?: number;
  duration_ms: number;
  display?: Display;
  /** Changes are the files this call changed, with their content before
   * and after, so that Loupe can put them back. */
  changes?: FileChange[];
}

/** permission.ToolSetting: ToolSetting is a per-tool choice that overrides the mode for that tool. */
export type ToolSetting = "always" | "ask" | "never";

/** llm.ToolSpec: ToolSpec describes a tool to the model. Parameters is a JSON schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonValue;
}

/** hooks.Tried: Tried is what the hooks would have said of one recorded call. */
export interface Tried {
  /** Seq is the call's tool_call event. */
  seq: number;
  run: number;
  round: number;
  call_id: string;
  tool: string;
  /** Decision is what the call's before_tool hooks came to: allow, deny,
   * ask, or "" (they said nothing, or none ran for it). */
  decision: string;
  /** Runs are each hook's run on the call, as the timeline would have
   * recorded them. */
  runs: HookRun[] | null;
}

/** session.Try: Try asks for the request of the model_request event At of Session to be
 * sent again. A zero field of Model, Temperature and NumCtx keeps what the
 * request had. */
export interface Try {
  /** ID names the try for its deltas and for CancelTry; the window picks
   * it. It may be "". */
  id?: string;
  session: string;
  at: number;
  /** Host is where to send it, named as for a new session (a Settings
   * name, "local", an address); "" is the host the session runs on. */
  host?: string;
  model?: string;
  temperature?: number;
  num_ctx?: number;
  /** Body is an edited copy of the body RawRequest gives, sent as it is
   * (with Model, Temperature and NumCtx set in it when given); "" sends
   * the recorded body. */
  body?: string;
}

/** trace.Answer: Answer is one model's answer to a request as a comparison shows it. */
export interface TryAnswer {
  model: string;
  /** Host is the Ollama server that answered (its base URL); HostName its
   * Settings name, "" for the local host or an address. */
  host?: string;
  host_name?: string;
  options: Options;
  content: string;
  thinking?: string;
  /** ToolCalls are the calls the model asked for; nothing ran them. */
  tool_calls: LlmToolCall[] | null;
  done_reason: string;
  /** Incomplete marks an answer that did not end normally (cut stream,
   * done_reason "length"). */
  incomplete: boolean;
  metrics: Metrics;
}

/** trace.ArgPair: ArgPair is one argument of a matched pair of calls; a side that lacks it
 * is null. */
export interface TryArgPair {
  name: string;
  recorded: JsonValue;
  alternative: JsonValue;
  verdict: string;
}

/** trace.CallPair: CallPair is a call of the recorded answer beside the call of the
 * alternative it matches (the same tool, in the same order), or alone. */
export interface TryCallPair {
  recorded: LlmToolCall | null;
  alternative: LlmToolCall | null;
  verdict: string;
  /** Args compares the arguments of a matched pair by name, the recorded
   * call's order first: values are equal when they are the same JSON
   * (key order and spacing aside). Nil for an unmatched call. */
  args: TryArgPair[] | null;
}

/** session.TryDelta: TryDelta is a piece of the alternative answer as it streams. */
export interface TryDelta {
  id: string;
  content?: string;
  thinking?: string;
}

/** trace.DiffLine: DiffLine is one line of a text diff from the recorded answer to the
 * alternative, without its line break. */
export interface TryDiffLine {
  op: string;
  text: string;
}

/** trace.Figure: Figure is one number of the meters or timings for both answers; a side
 * that has none (no answer recorded, no count reported) is null. */
export interface TryFigure {
  key: string;
  label: string;
  unit: string;
  recorded: number | null;
  alternative: number | null;
}

/** session.TryResult: TryResult is the alternative answer beside the recorded one. */
export interface TryResult {
  id?: string;
  session: string;
  at: number;
  /** Body is exactly the bytes that were sent; Exact says they are the
   * recorded request's, byte for byte. */
  body: string;
  exact: boolean;
  /** Changed lists what differs from the recorded request. */
  changed: string[] | null;
  /** Recorded is the answer the log holds to the request (nil when it
   * holds none: the request failed, or the run stopped before it). */
  recorded: TryAnswer | null;
  alternative: TryAnswer;
  compare: AnswerComparison;
}

/** session.UndoRun: UndoRun puts files back as they were before run Run. */
export interface UndoRunCommand {
  session: string;
  run: number;
  force?: boolean;
}

/** trace.Unrecovered: Unrecovered says of an answer's text that looks like a tool call but
 * was not made one: the form it is written in ("[TOOL_CALLS] (Mistral)",
 * "json"…), why it was not read (a tool that was not offered, JSON cut
 * off, recovery turned off) and the span. */
export interface Unrecovered {
  form: string;
  why: string;
  text: string;
}

/** trace.UserMessage: UserMessage is what the user typed. */
export interface UserMessagePayload {
  text: string;
}

/** workspace.Change: Change is one change to a workspace folder's settings, as the window
 * sends it: exactly one field is set. */
export interface WorkspaceChangeFields {
  /** Trust trusts (true) or stops trusting its .loupe/settings.json as
   * it is now. */
  trust?: boolean;
  /** Seen is, with Trust, the digest of the settings file the user was
   * shown (Info.Settings.Digest): if the file reads otherwise now, it
   * is not trusted. */
  seen?: string;
  /** Network lets its commands use the network, or not. */
  network?: boolean;
  /** Expose replaces the host paths its commands may also read. */
  expose?: string[];
  /** ForgetGrants drops the answers remembered for it. */
  forget_grants?: boolean;
}

/** workspace.Info: Info is what Loupe keeps about a workspace folder: whether the
 * user trusts its .loupe/settings.json, whether its commands may use the
 * network, and the answers remembered "for this workspace". */
export interface WorkspaceInfo {
  dir: string;
  /** Trusted is true when the user trusted the settings file as it is
   * now; a changed file needs trusting again. */
  trusted: boolean;
  /** HasSettings tells whether .loupe/settings.json exists;
   * SettingsError says why it was ignored, if it was. */
  has_settings: boolean;
  settings_error?: string;
  settings: WorkspaceSettings;
  /** Digest is the SHA-256 of the settings file as it was read for
   * this Info: what the window sends back with Trust (Change.Seen). */
  digest?: string;
  allow_network: boolean;
  /** Expose lists host paths the workspace's commands may read (a
   * toolchain under the home directory, say); nothing else outside the
   * workspace and the system's directories is visible to them. */
  expose: string[] | null;
  grants: Grant[] | null;
}

/** permission.WorkspaceSettings: WorkspaceSettings are what a workspace's .loupe/settings.json proposes.
 * A workspace is someone else's text until the user trusts it: Policy
 * uses its allow rules and commands only when Policy.Trusted is set (its
 * deny and ask rules, which only restrict, always), and the session layer must
 * likewise use Host and AllowNetwork only for a trusted workspace
 * (IfTrusted does that).
 *
 * 	{
 * 	  "rules":    [{"effect": "allow", "command": "make test"},
 * 	               {"effect": "deny", "path": "secrets/**"}],
 * 	  "commands": ["go test ./...", "npm run lint"],
 * 	  "host":     "http://127.0.0.1:11434",
 * 	  "allow_network": false
 * 	} */
export interface WorkspaceSettings {
  /** Rules are rules like the user's own. */
  rules?: Rule[];
  /** Commands are command patterns this workspace wants to run without
   * asking; each becomes an allow rule for run_command. */
  commands?: string[];
  /** Host is an Ollama host for this workspace. */
  host?: string;
  /** AllowNetwork asks for commands to have network access here. */
  allow_network?: boolean;
  /** MCPServers are MCP servers this workspace adds, in the mcpServers
   * shape (read by the mcp package, started only once the workspace is
   * trusted: a server is a program that runs). */
  mcpServers?: JsonValue;
  /** Hooks are this workspace's hooks, run after the user's own (see
   * package hooks); like its rules, only once the workspace is trusted. */
  hooks?: Hook[];
}
