import './app.css';
import { mount } from 'svelte';
import { createBridge } from './lib/bridge';
import AppShell from './views/AppShell.svelte';

const { bridge, demo } = createBridge();
const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

mount(AppShell, { target, props: { bridge, demo } });
