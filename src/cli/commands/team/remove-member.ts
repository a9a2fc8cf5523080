import { runner } from './member.js';

export const run = runner('remove');
