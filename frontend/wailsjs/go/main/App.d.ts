// Hand-written stand-in for the bindings Wails generates from main.App.
// The generated file replaces it; only src/lib/bridge imports it.
import {main} from '../models';

export function Answer(arg1:string,arg2:boolean):Promise<void>;

export function DeleteSession(arg1:string):Promise<void>;

export function GetSettings():Promise<main.Settings>;

export function ListModels():Promise<Array<main.ModelInfo>>;

export function ListSessions():Promise<Array<main.Summary>>;

export function NewSession(arg1:string,arg2:string):Promise<main.Summary>;

export function OpenSession(arg1:string):Promise<main.OpenedSession>;

export function PickWorkspace():Promise<string>;

export function RawRequest(arg1:string,arg2:number):Promise<string>;

export function SaveSettings(arg1:main.Settings):Promise<void>;

export function Send(arg1:string,arg2:string):Promise<void>;

export function SetModel(arg1:string,arg2:string):Promise<void>;

export function Status():Promise<main.StatusInfo>;

export function Stop(arg1:string):Promise<void>;
