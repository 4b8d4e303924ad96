// Hand-written stand-in for the Wails v2 runtime wrapper (wailsjs/runtime).
// Generated bindings replace it with a file of the same shape.

export function EventsOnMultiple(eventName, callback, maxCallbacks) {
  return window.runtime.EventsOnMultiple(eventName, callback, maxCallbacks);
}

export function EventsOn(eventName, callback) {
  return EventsOnMultiple(eventName, callback, -1);
}

export function EventsOnce(eventName, callback) {
  return EventsOnMultiple(eventName, callback, 1);
}

export function EventsOff(eventName, ...additionalEventNames) {
  return window.runtime.EventsOff(eventName, ...additionalEventNames);
}

export function EventsEmit(eventName, ...data) {
  return window.runtime.EventsEmit(eventName, ...data);
}

export function BrowserOpenURL(url) {
  window.runtime.BrowserOpenURL(url);
}

export function WindowSetTitle(title) {
  window.runtime.WindowSetTitle(title);
}
