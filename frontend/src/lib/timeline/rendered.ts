// "As the model read it": the prompt Ollama makes of a request with the
// model's chat template, cut into the template's markup (special tokens
// such as <|im_start|>, [INST] or <start_of_turn>, and tags such as
// <tool_call> or <tool_response>) and the text between, so a learner sees
// where each turn starts, where the tool schemas went and how a tool
// result is framed.

export interface PromptPiece {
  text: string;
  /** The piece is template markup, not message text. */
  markup: boolean;
}

// Special tokens written <|…|> (ChatML, Llama 3, Phi) or with full-width
// bars (DeepSeek), [INST]-style words in brackets (Mistral), and XML-like
// tags of the names templates use. A tag inside a tool result (an HTML
// file read) is marked too: the view says it is the template's or the
// text's only by position, as the model itself does.
const MARKUP =
  /<\|[^|<>\s]{1,48}\|>|<｜[^｜<>]{1,48}｜>|\[\/?(?:INST|SYS|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|SYSTEM_PROMPT|THINK)\]|<\/?(?:s|tools|tool_call|tool_response|tool_result|function_call|think|start_of_turn|end_of_turn|bos|eos)>|<<\/?SYS>>/g;

/** Cuts a rendered prompt into markup and text, in order; joined they are the prompt. */
export function splitPrompt(text: string): PromptPiece[] {
  const out: PromptPiece[] = [];
  let at = 0;
  for (const m of text.matchAll(MARKUP)) {
    const i = m.index ?? 0;
    if (i > at) out.push({ text: text.slice(at, i), markup: false });
    out.push({ text: m[0], markup: true });
    at = i + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), markup: false });
  return out;
}

/** The distinct markup of a prompt with how often each appears, most frequent first. */
export function markupCounts(pieces: PromptPiece[]): { token: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const p of pieces) if (p.markup) counts.set(p.text, (counts.get(p.text) ?? 0) + 1);
  return [...counts].map(([token, count]) => ({ token, count })).sort((a, b) => b.count - a.count || a.token.localeCompare(b.token));
}

/** The first 12 characters of a digest, as `ollama list` shows it ("" for none). */
export function shortDigest(d: string | undefined): string {
  return (d ?? '').replace(/^sha256:/, '').slice(0, 12);
}
