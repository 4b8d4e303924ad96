// @ts-check
// Hand-written stand-in for the bindings Wails generates from main.App.
// `go build -tags bindings` (or `wails generate module`) overwrites this file
// with the generated one, which has the same shape.

export function Answer(arg1, arg2) {
  return window['go']['main']['App']['Answer'](arg1, arg2);
}

export function DeleteSession(arg1) {
  return window['go']['main']['App']['DeleteSession'](arg1);
}

export function GetSettings() {
  return window['go']['main']['App']['GetSettings']();
}

export function ListModels() {
  return window['go']['main']['App']['ListModels']();
}

export function ListSessions() {
  return window['go']['main']['App']['ListSessions']();
}

export function NewSession(arg1, arg2) {
  return window['go']['main']['App']['NewSession'](arg1, arg2);
}

export function OpenSession(arg1) {
  return window['go']['main']['App']['OpenSession'](arg1);
}

export function PickWorkspace() {
  return window['go']['main']['App']['PickWorkspace']();
}

export function RawRequest(arg1, arg2) {
  return window['go']['main']['App']['RawRequest'](arg1, arg2);
}

export function SaveSettings(arg1) {
  return window['go']['main']['App']['SaveSettings'](arg1);
}

export function Send(arg1, arg2) {
  return window['go']['main']['App']['Send'](arg1, arg2);
}

export function SetModel(arg1, arg2) {
  return window['go']['main']['App']['SetModel'](arg1, arg2);
}

export function Status() {
  return window['go']['main']['App']['Status']();
}

export function Stop(arg1) {
  return window['go']['main']['App']['Stop'](arg1);
}
