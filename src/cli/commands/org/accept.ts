import { runner } from './respond.js';

export const run = runner('accept');
