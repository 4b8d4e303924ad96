export namespace agent {
	
	export class PrintedCall {
	    name: string;
	    args?: number[];
	    form: string;
	
	    static createFrom(source: any = {}) {
	        return new PrintedCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.args = source["args"];
	        this.form = source["form"];
	    }
	}

}

export namespace llm {
	
	export class Metrics {
	    prompt_eval_count: number;
	    eval_count: number;
	    total_duration: number;
	    load_duration: number;
	    prompt_eval_duration: number;
	    eval_duration: number;
	    time_to_first_token: number;
	
	    static createFrom(source: any = {}) {
	        return new Metrics(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.prompt_eval_count = source["prompt_eval_count"];
	        this.eval_count = source["eval_count"];
	        this.total_duration = source["total_duration"];
	        this.load_duration = source["load_duration"];
	        this.prompt_eval_duration = source["prompt_eval_duration"];
	        this.eval_duration = source["eval_duration"];
	        this.time_to_first_token = source["time_to_first_token"];
	    }
	}
	export class ToolCall {
	    id: string;
	    index: number;
	    name: string;
	    args: number[];
	
	    static createFrom(source: any = {}) {
	        return new ToolCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.index = source["index"];
	        this.name = source["name"];
	        this.args = source["args"];
	    }
	}

}

export namespace localollama {
	
	export class State {
	    on_this_machine: boolean;
	    installed: boolean;
	    binary: string;
	    binary_version: string;
	    started_by_loupe: boolean;
	    log_path: string;
	    install: string;
	    install_url: string;
	    last_error: string;
	
	    static createFrom(source: any = {}) {
	        return new State(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.on_this_machine = source["on_this_machine"];
	        this.installed = source["installed"];
	        this.binary = source["binary"];
	        this.binary_version = source["binary_version"];
	        this.started_by_loupe = source["started_by_loupe"];
	        this.log_path = source["log_path"];
	        this.install = source["install"];
	        this.install_url = source["install_url"];
	        this.last_error = source["last_error"];
	    }
	}

}

export namespace main {
	
	export class HostCheck {
	    host: string;
	    reachable: boolean;
	    version: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new HostCheck(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.reachable = source["reachable"];
	        this.version = source["version"];
	        this.message = source["message"];
	    }
	}
	export class PendingDelete {
	    session: string;
	    // Go type: time
	    until: any;
	
	    static createFrom(source: any = {}) {
	        return new PendingDelete(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.until = this.convertValues(source["until"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Status {
	    ollama_host: string;
	    hosts: settings.HostChoice;
	    reachable: boolean;
	    version: string;
	    message: string;
	    db_path: string;
	    db_error: string;
	    local: localollama.State;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ollama_host = source["ollama_host"];
	        this.hosts = this.convertValues(source["hosts"], settings.HostChoice);
	        this.reachable = source["reachable"];
	        this.version = source["version"];
	        this.message = source["message"];
	        this.db_path = source["db_path"];
	        this.db_error = source["db_error"];
	        this.local = this.convertValues(source["local"], localollama.State);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace ollama {
	
	export class Connection {
	    host: string;
	    port: string;
	    count: number;
	    failed: number;
	    loopback: boolean;
	    remote?: string;
	
	    static createFrom(source: any = {}) {
	        return new Connection(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.port = source["port"];
	        this.count = source["count"];
	        this.failed = source["failed"];
	        this.loopback = source["loopback"];
	        this.remote = source["remote"];
	    }
	}
	export class ModelInfo {
	    name: string;
	    size: number;
	    family: string;
	    parameter_size: string;
	    quantization: string;
	    capabilities: string[];
	    context_length: number;
	    // Go type: time
	    modified_at: any;
	
	    static createFrom(source: any = {}) {
	        return new ModelInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.size = source["size"];
	        this.family = source["family"];
	        this.parameter_size = source["parameter_size"];
	        this.quantization = source["quantization"];
	        this.capabilities = source["capabilities"];
	        this.context_length = source["context_length"];
	        this.modified_at = this.convertValues(source["modified_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace permission {
	
	export class Rule {
	    effect: string;
	    tool?: string;
	    command?: string;
	    command_line?: string;
	    path?: string;
	
	    static createFrom(source: any = {}) {
	        return new Rule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.effect = source["effect"];
	        this.tool = source["tool"];
	        this.command = source["command"];
	        this.command_line = source["command_line"];
	        this.path = source["path"];
	    }
	}
	export class Grant {
	    rule: Rule;
	    scope: string;
	    target?: string;
	
	    static createFrom(source: any = {}) {
	        return new Grant(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rule = this.convertValues(source["rule"], Rule);
	        this.scope = source["scope"];
	        this.target = source["target"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class RuleCheck {
	    text: string;
	    problem: string;
	
	    static createFrom(source: any = {}) {
	        return new RuleCheck(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.problem = source["problem"];
	    }
	}
	export class RuleLimits {
	    limits?: string[];
	    path_rules?: Rule[];
	
	    static createFrom(source: any = {}) {
	        return new RuleLimits(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.limits = source["limits"];
	        this.path_rules = this.convertValues(source["path_rules"], Rule);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class WorkspaceSettings {
	    rules?: Rule[];
	    commands?: string[];
	    host?: string;
	    allow_network?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new WorkspaceSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rules = this.convertValues(source["rules"], Rule);
	        this.commands = source["commands"];
	        this.host = source["host"];
	        this.allow_network = source["allow_network"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace readiness {
	
	export class Item {
	    check: string;
	    status: string;
	    detail: string;
	    fix?: string;
	
	    static createFrom(source: any = {}) {
	        return new Item(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.check = source["check"];
	        this.status = source["status"];
	        this.detail = source["detail"];
	        this.fix = source["fix"];
	    }
	}
	export class Reply {
	    kind: string;
	    content: string;
	    calls?: llm.ToolCall[];
	    printed?: agent.PrintedCall[];
	
	    static createFrom(source: any = {}) {
	        return new Reply(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.content = source["content"];
	        this.calls = this.convertValues(source["calls"], llm.ToolCall);
	        this.printed = this.convertValues(source["printed"], agent.PrintedCall);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ToolCost {
	    name: string;
	    tokens: number;
	
	    static createFrom(source: any = {}) {
	        return new ToolCost(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.tokens = source["tokens"];
	    }
	}
	export class Report {
	    model: string;
	    capabilities: string[];
	    context_length: number;
	    num_ctx: number;
	    fixed_tokens: number;
	    system_tokens: number;
	    tool_tokens: number;
	    tools: ToolCost[];
	    items: Item[];
	    reply?: Reply;
	    ready: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Report(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.capabilities = source["capabilities"];
	        this.context_length = source["context_length"];
	        this.num_ctx = source["num_ctx"];
	        this.fixed_tokens = source["fixed_tokens"];
	        this.system_tokens = source["system_tokens"];
	        this.tool_tokens = source["tool_tokens"];
	        this.tools = this.convertValues(source["tools"], ToolCost);
	        this.items = this.convertValues(source["items"], Item);
	        this.reply = this.convertValues(source["reply"], Reply);
	        this.ready = source["ready"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace sandbox {
	
	export class Protection {
	    Name: string;
	    Active: boolean;
	    Detail: string;
	
	    static createFrom(source: any = {}) {
	        return new Protection(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.Name = source["Name"];
	        this.Active = source["Active"];
	        this.Detail = source["Detail"];
	    }
	}
	export class Report {
	    LandlockABI: number;
	    Writes: Protection;
	    Network: Protection;
	    Processes: Protection;
	    Secrets: Protection;
	    Sockets: Protection;
	    IPC: Protection;
	    Limits: Protection;
	    list: Protection[];
	    sandboxed: boolean;
	    missing: Protection[];
	    why: string;
	    summary: string;
	
	    static createFrom(source: any = {}) {
	        return new Report(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.LandlockABI = source["LandlockABI"];
	        this.Writes = this.convertValues(source["Writes"], Protection);
	        this.Network = this.convertValues(source["Network"], Protection);
	        this.Processes = this.convertValues(source["Processes"], Protection);
	        this.Secrets = this.convertValues(source["Secrets"], Protection);
	        this.Sockets = this.convertValues(source["Sockets"], Protection);
	        this.IPC = this.convertValues(source["IPC"], Protection);
	        this.Limits = this.convertValues(source["Limits"], Protection);
	        this.list = this.convertValues(source["list"], Protection);
	        this.sandboxed = source["sandboxed"];
	        this.missing = this.convertValues(source["missing"], Protection);
	        this.why = source["why"];
	        this.summary = source["summary"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace session {
	
	export class Breakpoints {
	    points: string[];
	    tools: string[];
	
	    static createFrom(source: any = {}) {
	        return new Breakpoints(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.points = source["points"];
	        this.tools = source["tools"];
	    }
	}
	export class Conflict {
	    path: string;
	    reason: string;
	    kept?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Conflict(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.reason = source["reason"];
	        this.kept = source["kept"];
	    }
	}
	export class Summary {
	    id: string;
	    title: string;
	    workspace: string;
	    model: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    last_reason: string;
	    event_count: number;
	    open_run: number;
	    tools?: string[];
	    host?: string;
	    pinned: boolean;
	    copied_from?: string;
	    forked_from?: string;
	    fork_seq?: number;
	    rounds: number;
	    running: boolean;
	    standing: string;
	    stepping: boolean;
	    breakpoints: Breakpoints;
	
	    static createFrom(source: any = {}) {
	        return new Summary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.workspace = source["workspace"];
	        this.model = source["model"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.last_reason = source["last_reason"];
	        this.event_count = source["event_count"];
	        this.open_run = source["open_run"];
	        this.tools = source["tools"];
	        this.host = source["host"];
	        this.pinned = source["pinned"];
	        this.copied_from = source["copied_from"];
	        this.forked_from = source["forked_from"];
	        this.fork_seq = source["fork_seq"];
	        this.rounds = source["rounds"];
	        this.running = source["running"];
	        this.standing = source["standing"];
	        this.stepping = source["stepping"];
	        this.breakpoints = this.convertValues(source["breakpoints"], Breakpoints);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Detail {
	    summary: Summary;
	    events: trace.Event[];
	
	    static createFrom(source: any = {}) {
	        return new Detail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.summary = this.convertValues(source["summary"], Summary);
	        this.events = this.convertValues(source["events"], trace.Event);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FileNote {
	    path: string;
	    note: string;
	
	    static createFrom(source: any = {}) {
	        return new FileNote(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.note = source["note"];
	    }
	}
	export class Fork {
	    session: string;
	    at: number;
	    model?: string;
	    host?: string;
	    tools?: string[];
	    files?: string;
	    folder?: string;
	
	    static createFrom(source: any = {}) {
	        return new Fork(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.at = source["at"];
	        this.model = source["model"];
	        this.host = source["host"];
	        this.tools = source["tools"];
	        this.files = source["files"];
	        this.folder = source["folder"];
	    }
	}
	export class ForkFiles {
	    workspace: string;
	    copy: boolean;
	    changed: string[];
	    restored: FileNote[];
	    not_restored: FileNote[];
	    not_copied: FileNote[];
	    commands: number[];
	
	    static createFrom(source: any = {}) {
	        return new ForkFiles(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.copy = source["copy"];
	        this.changed = source["changed"];
	        this.restored = this.convertValues(source["restored"], FileNote);
	        this.not_restored = this.convertValues(source["not_restored"], FileNote);
	        this.not_copied = this.convertValues(source["not_copied"], FileNote);
	        this.commands = source["commands"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ForkPreview {
	    at: number;
	    problem?: string;
	    workspace: string;
	    changed: string[];
	    commands: number[];
	    copy_folder: string;
	    pause?: string;
	
	    static createFrom(source: any = {}) {
	        return new ForkPreview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.at = source["at"];
	        this.problem = source["problem"];
	        this.workspace = source["workspace"];
	        this.changed = source["changed"];
	        this.commands = source["commands"];
	        this.copy_folder = source["copy_folder"];
	        this.pause = source["pause"];
	    }
	}
	export class Forked {
	    summary: Summary;
	    files: ForkFiles;
	
	    static createFrom(source: any = {}) {
	        return new Forked(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.summary = this.convertValues(source["summary"], Summary);
	        this.files = this.convertValues(source["files"], ForkFiles);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ModelCheck {
	    model: string;
	    host?: string;
	    workspace: string;
	    tools?: string[];
	    round_trip: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ModelCheck(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.host = source["host"];
	        this.workspace = source["workspace"];
	        this.tools = source["tools"];
	        this.round_trip = source["round_trip"];
	    }
	}
	export class RestoreResult {
	    done: boolean;
	    restored: string[];
	    conflicts: Conflict[];
	
	    static createFrom(source: any = {}) {
	        return new RestoreResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.done = source["done"];
	        this.restored = source["restored"];
	        this.conflicts = this.convertValues(source["conflicts"], Conflict);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Outcome {
	    summary?: Summary;
	    restore?: RestoreResult;
	    compaction?: trace.Compaction;
	
	    static createFrom(source: any = {}) {
	        return new Outcome(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.summary = this.convertValues(source["summary"], Summary);
	        this.restore = this.convertValues(source["restore"], RestoreResult);
	        this.compaction = this.convertValues(source["compaction"], trace.Compaction);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RenderedPrompt {
	    model: string;
	    text: string;
	    digest?: string;
	    // Go type: time
	    rendered_at: any;
	    seq: number;
	
	    static createFrom(source: any = {}) {
	        return new RenderedPrompt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.text = source["text"];
	        this.digest = source["digest"];
	        this.rendered_at = this.convertValues(source["rendered_at"], null);
	        this.seq = source["seq"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class SystemPrompt {
	    text: string;
	    instructions?: trace.Instructions;
	    notice?: trace.Notice;
	
	    static createFrom(source: any = {}) {
	        return new SystemPrompt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.instructions = this.convertValues(source["instructions"], trace.Instructions);
	        this.notice = this.convertValues(source["notice"], trace.Notice);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ToolInfo {
	    name: string;
	    summary: string;
	    path_arg: string;
	    read_only: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ToolInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.summary = source["summary"];
	        this.path_arg = source["path_arg"];
	        this.read_only = source["read_only"];
	    }
	}

}

export namespace settings {
	
	export class HostChoice {
	    host: string;
	    from: string;
	    flag: string;
	    env: string;
	
	    static createFrom(source: any = {}) {
	        return new HostChoice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.from = source["from"];
	        this.flag = source["flag"];
	        this.env = source["env"];
	    }
	}
	export class HostProfile {
	    name: string;
	    url: string;
	
	    static createFrom(source: any = {}) {
	        return new HostProfile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.url = source["url"];
	    }
	}
	export class Settings {
	    max_rounds: number;
	    num_ctx_cap: number;
	    temperature: number;
	    permission_mode: string;
	    tools: {[key: string]: string};
	    rules: permission.Rule[];
	    system_prompt: string;
	    step_mode: boolean;
	    first_token_timeout_s: number;
	    stall_timeout_s: number;
	    ollama_host: string;
	    hosts: HostProfile[];
	    recover_text_calls: boolean;
	    repeat_limit: number;
	    compact: boolean;
	    compact_at_percent: number;
	    compact_keep_rounds: number;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.max_rounds = source["max_rounds"];
	        this.num_ctx_cap = source["num_ctx_cap"];
	        this.temperature = source["temperature"];
	        this.permission_mode = source["permission_mode"];
	        this.tools = source["tools"];
	        this.rules = this.convertValues(source["rules"], permission.Rule);
	        this.system_prompt = source["system_prompt"];
	        this.step_mode = source["step_mode"];
	        this.first_token_timeout_s = source["first_token_timeout_s"];
	        this.stall_timeout_s = source["stall_timeout_s"];
	        this.ollama_host = source["ollama_host"];
	        this.hosts = this.convertValues(source["hosts"], HostProfile);
	        this.recover_text_calls = source["recover_text_calls"];
	        this.repeat_limit = source["repeat_limit"];
	        this.compact = source["compact"];
	        this.compact_at_percent = source["compact_at_percent"];
	        this.compact_keep_rounds = source["compact_keep_rounds"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace store {
	
	export class SnippetPart {
	    text: string;
	    match?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SnippetPart(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.match = source["match"];
	    }
	}
	export class Hit {
	    seq: number;
	    kind: string;
	    run: number;
	    round: number;
	    // Go type: time
	    time: any;
	    snippet: SnippetPart[];
	
	    static createFrom(source: any = {}) {
	        return new Hit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.kind = source["kind"];
	        this.run = source["run"];
	        this.round = source["round"];
	        this.time = this.convertValues(source["time"], null);
	        this.snippet = this.convertValues(source["snippet"], SnippetPart);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SearchFilter {
	    model?: string;
	    workspace?: string;
	    outcome?: string;
	    // Go type: time
	    from: any;
	    // Go type: time
	    to: any;
	
	    static createFrom(source: any = {}) {
	        return new SearchFilter(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.workspace = source["workspace"];
	        this.outcome = source["outcome"];
	        this.from = this.convertValues(source["from"], null);
	        this.to = this.convertValues(source["to"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SearchStatus {
	    indexed: number;
	    total: number;
	
	    static createFrom(source: any = {}) {
	        return new SearchStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.indexed = source["indexed"];
	        this.total = source["total"];
	    }
	}
	export class SessionHits {
	    session_id: string;
	    title: string;
	    model: string;
	    workspace: string;
	    last_reason: string;
	    // Go type: time
	    updated_at: any;
	    hits: Hit[];
	
	    static createFrom(source: any = {}) {
	        return new SessionHits(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.title = source["title"];
	        this.model = source["model"];
	        this.workspace = source["workspace"];
	        this.last_reason = source["last_reason"];
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.hits = this.convertValues(source["hits"], Hit);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SearchResults {
	    query: string;
	    sessions: SessionHits[];
	    more: boolean;
	    order: string;
	    partial: boolean;
	    status: SearchStatus;
	
	    static createFrom(source: any = {}) {
	        return new SearchResults(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.query = source["query"];
	        this.sessions = this.convertValues(source["sessions"], SessionHits);
	        this.more = source["more"];
	        this.order = source["order"];
	        this.partial = source["partial"];
	        this.status = this.convertValues(source["status"], SearchStatus);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace trace {
	
	export class Compaction {
	    request_seq: number;
	    trigger: string;
	    summary: string;
	    from_seq: number;
	    through_seq: number;
	    messages: number;
	    from_run: number;
	    from_round: number;
	    through_run: number;
	    through_round: number;
	    tokens_before: number;
	    tokens_after: number;
	
	    static createFrom(source: any = {}) {
	        return new Compaction(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.request_seq = source["request_seq"];
	        this.trigger = source["trigger"];
	        this.summary = source["summary"];
	        this.from_seq = source["from_seq"];
	        this.through_seq = source["through_seq"];
	        this.messages = source["messages"];
	        this.from_run = source["from_run"];
	        this.from_round = source["from_round"];
	        this.through_run = source["through_run"];
	        this.through_round = source["through_round"];
	        this.tokens_before = source["tokens_before"];
	        this.tokens_after = source["tokens_after"];
	    }
	}
	export class Cut {
	    bytes: number;
	    lines?: number;
	
	    static createFrom(source: any = {}) {
	        return new Cut(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.bytes = source["bytes"];
	        this.lines = source["lines"];
	    }
	}
	export class Event {
	    session_id: string;
	    seq: number;
	    kind: string;
	    // Go type: time
	    time: any;
	    run: number;
	    round: number;
	    payload: number[];
	    preview?: {[key: string]: Cut};
	
	    static createFrom(source: any = {}) {
	        return new Event(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.kind = source["kind"];
	        this.time = this.convertValues(source["time"], null);
	        this.run = source["run"];
	        this.round = source["round"];
	        this.payload = source["payload"];
	        this.preview = this.convertValues(source["preview"], Cut, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Instructions {
	    source: string;
	    start: number;
	    len: number;
	    bytes: number;
	    cut?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Instructions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.source = source["source"];
	        this.start = source["start"];
	        this.len = source["len"];
	        this.bytes = source["bytes"];
	        this.cut = source["cut"];
	    }
	}
	export class Parts {
	    system: number;
	    tools: number;
	    history: number;
	    new: number;
	
	    static createFrom(source: any = {}) {
	        return new Parts(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.system = source["system"];
	        this.tools = source["tools"];
	        this.history = source["history"];
	        this.new = source["new"];
	    }
	}
	export class Meter {
	    prompt: number;
	    source: string;
	    counted?: number;
	    output?: number;
	    num_ctx: number;
	    loaded?: number;
	    parts: Parts;
	    bytes_per_token?: number;
	    dropped?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Meter(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.prompt = source["prompt"];
	        this.source = source["source"];
	        this.counted = source["counted"];
	        this.output = source["output"];
	        this.num_ctx = source["num_ctx"];
	        this.loaded = source["loaded"];
	        this.parts = this.convertValues(source["parts"], Parts);
	        this.bytes_per_token = source["bytes_per_token"];
	        this.dropped = source["dropped"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Unrecovered {
	    form: string;
	    why: string;
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new Unrecovered(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.form = source["form"];
	        this.why = source["why"];
	        this.text = source["text"];
	    }
	}
	export class Rescue {
	    call_id: string;
	    recovered?: boolean;
	    form?: string;
	    text?: string;
	    repaired?: string;
	    original?: string;
	    unparsed?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Rescue(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.call_id = source["call_id"];
	        this.recovered = source["recovered"];
	        this.form = source["form"];
	        this.text = source["text"];
	        this.repaired = source["repaired"];
	        this.original = source["original"];
	        this.unparsed = source["unparsed"];
	    }
	}
	export class ModelResponse {
	    request_seq: number;
	    content: string;
	    thinking?: string;
	    tool_calls?: llm.ToolCall[];
	    done_reason: string;
	    incomplete: boolean;
	    metrics: llm.Metrics;
	    context?: Meter;
	    chunks: number;
	    raw?: number[];
	    rescued?: Rescue[];
	    printed?: string;
	    unrecovered?: Unrecovered;
	
	    static createFrom(source: any = {}) {
	        return new ModelResponse(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.request_seq = source["request_seq"];
	        this.content = source["content"];
	        this.thinking = source["thinking"];
	        this.tool_calls = this.convertValues(source["tool_calls"], llm.ToolCall);
	        this.done_reason = source["done_reason"];
	        this.incomplete = source["incomplete"];
	        this.metrics = this.convertValues(source["metrics"], llm.Metrics);
	        this.context = this.convertValues(source["context"], Meter);
	        this.chunks = source["chunks"];
	        this.raw = source["raw"];
	        this.rescued = this.convertValues(source["rescued"], Rescue);
	        this.printed = source["printed"];
	        this.unrecovered = this.convertValues(source["unrecovered"], Unrecovered);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Notice {
	    code: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Notice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.message = source["message"];
	    }
	}
	
	

}

export namespace workspace {
	
	export class Change {
	    trust?: boolean;
	    network?: boolean;
	    expose?: string[];
	    forget_grants?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Change(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.trust = source["trust"];
	        this.network = source["network"];
	        this.expose = source["expose"];
	        this.forget_grants = source["forget_grants"];
	    }
	}
	export class Info {
	    dir: string;
	    trusted: boolean;
	    has_settings: boolean;
	    settings_error?: string;
	    settings: permission.WorkspaceSettings;
	    allow_network: boolean;
	    expose: string[];
	    grants: permission.Grant[];
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.dir = source["dir"];
	        this.trusted = source["trusted"];
	        this.has_settings = source["has_settings"];
	        this.settings_error = source["settings_error"];
	        this.settings = this.convertValues(source["settings"], permission.WorkspaceSettings);
	        this.allow_network = source["allow_network"];
	        this.expose = source["expose"];
	        this.grants = this.convertValues(source["grants"], permission.Grant);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

