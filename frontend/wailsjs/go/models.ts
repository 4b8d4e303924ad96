// Hand-written stand-in for the models file Wails generates from the Go
// types of main.App's methods. The generated file replaces it. The bridge
// does not rely on these class names: it converts results to its own types.
export namespace main {
	export class Settings {
	    max_rounds: number;
	    num_ctx_cap: number;
	    temperature: number;
	    permission_mode: string;
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
	        this.system_prompt = source["system_prompt"];
	    }
	}
	export class StatusInfo {
	    ollama_host: string;
	    reachable: boolean;
	    version: string;
	    message: string;
	    db_path: string;

	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ollama_host = source["ollama_host"];
	        this.reachable = source["reachable"];
	        this.version = source["version"];
	        this.message = source["message"];
	        this.db_path = source["db_path"];
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
	    modified_at: any;

	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.size = source["size"];
	        this.family = source["family"];
	        this.parameter_size = source["parameter_size"];
	        this.quantization = source["quantization"];
	        this.capabilities = source["capabilities"];
	        this.context_length = source["context_length"];
	        this.modified_at = source["modified_at"];
	    }
	}
	export class Summary {
	    id: string;
	    title: string;
	    workspace: string;
	    model: string;
	    created_at: any;
	    updated_at: any;
	    last_reason: string;
	    event_count: number;
	    running: boolean;

	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.workspace = source["workspace"];
	        this.model = source["model"];
	        this.created_at = source["created_at"];
	        this.updated_at = source["updated_at"];
	        this.last_reason = source["last_reason"];
	        this.event_count = source["event_count"];
	        this.running = source["running"];
	    }
	}
	export class OpenedSession {
	    summary: Summary;
	    events: any[];
	    approvals: any[];

	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.summary = new Summary(source["summary"]);
	        this.events = source["events"];
	        this.approvals = source["approvals"];
	    }
	}
}
