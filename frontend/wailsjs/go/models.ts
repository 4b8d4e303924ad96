export namespace llm {
	
	export class Options {
	    num_ctx: number;
	    temperature: number;
	
	    static createFrom(source: any = {}) {
	        return new Options(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.num_ctx = source["num_ctx"];
	        this.temperature = source["temperature"];
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

export namespace main {
	
	export class Status {
	    ollama_host: string;
	    reachable: boolean;
	    version: string;
	    message: string;
	    db_path: string;
	    db_error: string;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ollama_host = source["ollama_host"];
	        this.reachable = source["reachable"];
	        this.version = source["version"];
	        this.message = source["message"];
	        this.db_path = source["db_path"];
	        this.db_error = source["db_error"];
	    }
	}

}

export namespace ollama {
	
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
	
	export class Call {
	    tool: string;
	    read_only: boolean;
	    command?: string;
	    paths?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Call(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.tool = source["tool"];
	        this.read_only = source["read_only"];
	        this.command = source["command"];
	        this.paths = source["paths"];
	    }
	}
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
	
	    static createFrom(source: any = {}) {
	        return new Grant(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rule = this.convertValues(source["rule"], Rule);
	        this.scope = source["scope"];
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
	export class Request {
	    id: string;
	    session_id: string;
	    call_id: string;
	    tool: string;
	    args: number[];
	    display: trace.Display;
	    summary: string;
	    call?: Call;
	    reasons?: string[];
	    once_only?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Request(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session_id = source["session_id"];
	        this.call_id = source["call_id"];
	        this.tool = source["tool"];
	        this.args = source["args"];
	        this.display = this.convertValues(source["display"], trace.Display);
	        this.summary = source["summary"];
	        this.call = this.convertValues(source["call"], Call);
	        this.reasons = source["reasons"];
	        this.once_only = source["once_only"];
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
	export class Protections {
	    LandlockABI: number;
	    Writes: Protection;
	    Network: Protection;
	    Processes: Protection;
	    Secrets: Protection;
	    Sockets: Protection;
	    Limits: Protection;
	
	    static createFrom(source: any = {}) {
	        return new Protections(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.LandlockABI = source["LandlockABI"];
	        this.Writes = this.convertValues(source["Writes"], Protection);
	        this.Network = this.convertValues(source["Network"], Protection);
	        this.Processes = this.convertValues(source["Processes"], Protection);
	        this.Secrets = this.convertValues(source["Secrets"], Protection);
	        this.Sockets = this.convertValues(source["Sockets"], Protection);
	        this.Limits = this.convertValues(source["Limits"], Protection);
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
	
	    static createFrom(source: any = {}) {
	        return new Conflict(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.reason = source["reason"];
	    }
	}
	export class PendingMessage {
	    seq: number;
	    role: string;
	    content: string;
	    tool_calls?: llm.ToolCall[];
	    tool_call_id?: string;
	    tool_name?: string;
	
	    static createFrom(source: any = {}) {
	        return new PendingMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.role = source["role"];
	        this.content = source["content"];
	        this.tool_calls = this.convertValues(source["tool_calls"], llm.ToolCall);
	        this.tool_call_id = source["tool_call_id"];
	        this.tool_name = source["tool_name"];
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
	export class PendingRequest {
	    model: string;
	    system: string;
	    options: llm.Options;
	    tools: string[];
	    messages: PendingMessage[];
	
	    static createFrom(source: any = {}) {
	        return new PendingRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.system = source["system"];
	        this.options = this.convertValues(source["options"], llm.Options);
	        this.tools = source["tools"];
	        this.messages = this.convertValues(source["messages"], PendingMessage);
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
	export class Pause {
	    point: string;
	    run: number;
	    round: number;
	    call_id?: string;
	    tool?: string;
	    request?: PendingRequest;
	    args?: number[];
	    result?: trace.ToolResult;
	
	    static createFrom(source: any = {}) {
	        return new Pause(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.point = source["point"];
	        this.run = source["run"];
	        this.round = source["round"];
	        this.call_id = source["call_id"];
	        this.tool = source["tool"];
	        this.request = this.convertValues(source["request"], PendingRequest);
	        this.args = source["args"];
	        this.result = this.convertValues(source["result"], trace.ToolResult);
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
	    running: boolean;
	    stepping: boolean;
	    breakpoints: Breakpoints;
	    paused?: Pause;
	
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
	        this.running = source["running"];
	        this.stepping = source["stepping"];
	        this.breakpoints = this.convertValues(source["breakpoints"], Breakpoints);
	        this.paused = this.convertValues(source["paused"], Pause);
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
	    approvals: permission.Request[];
	
	    static createFrom(source: any = {}) {
	        return new Detail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.summary = this.convertValues(source["summary"], Summary);
	        this.events = this.convertValues(source["events"], trace.Event);
	        this.approvals = this.convertValues(source["approvals"], permission.Request);
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
	export class MessageEdit {
	    seq: number;
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new MessageEdit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.content = source["content"];
	    }
	}
	
	
	
	export class RequestEdit {
	    system?: string;
	    options?: llm.Options;
	    messages?: MessageEdit[];
	
	    static createFrom(source: any = {}) {
	        return new RequestEdit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.system = source["system"];
	        this.options = this.convertValues(source["options"], llm.Options);
	        this.messages = this.convertValues(source["messages"], MessageEdit);
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
	export class Settings {
	    max_rounds: number;
	    num_ctx_cap: number;
	    temperature: number;
	    permission_mode: string;
	    tools: {[key: string]: string};
	    rules: permission.Rule[];
	    system_prompt: string;
	
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
	export class Display {
	    path?: string;
	    diff?: string;
	    command?: string;
	
	    static createFrom(source: any = {}) {
	        return new Display(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.diff = source["diff"];
	        this.command = source["command"];
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
	export class FileChange {
	    path: string;
	    before?: string;
	    after?: string;
	
	    static createFrom(source: any = {}) {
	        return new FileChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.before = source["before"];
	        this.after = source["after"];
	    }
	}
	export class ToolResult {
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
	    changes?: FileChange[];
	
	    static createFrom(source: any = {}) {
	        return new ToolResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.call_id = source["call_id"];
	        this.name = source["name"];
	        this.content = source["content"];
	        this.is_error = source["is_error"];
	        this.error_kind = source["error_kind"];
	        this.truncated = source["truncated"];
	        this.bytes = source["bytes"];
	        this.exit_code = source["exit_code"];
	        this.duration_ms = source["duration_ms"];
	        this.display = this.convertValues(source["display"], Display);
	        this.changes = this.convertValues(source["changes"], FileChange);
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

export namespace workspace {
	
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

