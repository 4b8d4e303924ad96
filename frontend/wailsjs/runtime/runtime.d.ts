// Hand-written stand-in for the Wails v2 runtime declarations.

// Registers a listener for an event, called at most maxCallbacks times
// (-1: no limit). Returns a function that removes this listener.
export function EventsOnMultiple(eventName: string, callback: (...data: any) => void, maxCallbacks: number): () => void;

export function EventsOn(eventName: string, callback: (...data: any) => void): () => void;

export function EventsOnce(eventName: string, callback: (...data: any) => void): () => void;

// Removes every listener of the named events.
export function EventsOff(eventName: string, ...additionalEventNames: string[]): void;

export function EventsEmit(eventName: string, ...data: any): void;

// Opens a URL in the system's browser.
export function BrowserOpenURL(url: string): void;

export function WindowSetTitle(title: string): void;
