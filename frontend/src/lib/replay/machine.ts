// What the machine around a replayed session looks like: Ollama's state,
// the installed models and the OS protections commands get. None of it is
// the engine's behaviour and all of it differs by machine, so recordings
// leave it out; specs and the demo choose it.
import type { ModelInfo, Protections, StatusInfo } from '../types';

export const reachableStatus: StatusInfo = {
  ollama_host: 'http://127.0.0.1:11434',
  hosts: { host: 'http://127.0.0.1:11434', from: 'default', flag: '', env: '' },
  reachable: true,
  version: '0.13.0',
  message: '',
  db_path: '/home/me/.local/share/loupe/loupe.db',
  db_error: '',
  local: {
    on_this_machine: true,
    installed: true,
    binary: '/usr/local/bin/ollama',
    binary_version: '0.13.0',
    started_by_loupe: false,
    log_path: '',
    install: '',
    install_url: '',
    last_error: '',
  },
};

/** The model the recordings ran with, and two more: one without tools, one that thinks. */
export const models: ModelInfo[] = [
  {
    name: 'qwen3:0.6b',
    size: 522_653_767,
    family: 'qwen3',
    parameter_size: '751.63M',
    quantization: 'Q4_K_M',
    capabilities: ['completion', 'tools'],
    context_length: 40960,
    modified_at: '2026-01-02T09:00:00Z',
  },
  {
    name: 'llama3.2:1b',
    size: 1_321_098_329,
    family: 'llama',
    parameter_size: '1.2B',
    quantization: 'Q8_0',
    capabilities: ['completion', 'tools', 'thinking'],
    context_length: 131072,
    modified_at: '2026-01-01T09:00:00Z',
  },
  {
    name: 'gemma3:1b',
    size: 815_319_791,
    family: 'gemma3',
    parameter_size: '999.89M',
    quantization: 'Q4_K_M',
    capabilities: ['completion'],
    context_length: 32768,
    modified_at: '2025-12-20T09:00:00Z',
  },
];

/** A Linux machine with Landlock ABI 6 and user namespaces: every protection. */
export function sandboxedProtections(): Protections {
  return {
    LandlockABI: 6,
    Writes: { Name: 'Writes', Active: true, Detail: 'only the workspace and a temporary directory are writable (Landlock ABI 6)' },
    Network: { Name: 'Network', Active: true, Detail: 'blocked: a network namespace with only a loopback interface' },
    Processes: { Name: 'Processes', Active: true, Detail: 'a PID namespace: nothing a command starts outlives it' },
    Secrets: { Name: 'Secrets', Active: true, Detail: "a command sees the workspace, the system's directories and a private home: nothing of your home" },
    Sockets: { Name: 'Sockets', Active: true, Detail: 'no Unix socket outside the sandbox is reachable: abstract sockets are per network namespace' },
    IPC: { Name: 'IPC', Active: true, Detail: 'a command has System V shared memory, message queues and semaphores and POSIX message queues of its own (IPC namespace); still shared with the machine: the clock' },
    Limits: { Name: 'Limits', Active: true, Detail: 'files up to 1024 MiB, 8 GiB of memory per process, at most 2048 processes' },
  };
}

/** A kernel without Landlock or user namespaces: nothing confines commands. */
export function unconfinedProtections(why = 'Landlock is not available (the kernel does not support it)'): Protections {
  return {
    LandlockABI: 0,
    Writes: { Name: 'Writes', Active: false, Detail: why },
    Network: { Name: 'Network', Active: false, Detail: 'no network namespace and no Landlock network rules' },
    Processes: { Name: 'Processes', Active: false, Detail: 'no PID namespace: user namespaces are disabled' },
    Secrets: { Name: 'Secrets', Active: false, Detail: 'no mount namespace; only the environment is scrubbed' },
    Sockets: { Name: 'Sockets', Active: false, Detail: 'Unix sockets outside the sandbox (tmux, ssh-agent, D-Bus, Docker) are reachable: no mount namespace' },
    IPC: { Name: 'IPC', Active: false, Detail: 'shared memory, message queues and semaphores of your other programs are reachable: no IPC namespace' },
    Limits: { Name: 'Limits', Active: true, Detail: 'files up to 1024 MiB, 8 GiB of memory per process, no core dumps' },
  };
}
