import { describe, expect, it } from 'vitest';
import { unsupportedPostgres } from '../../src/core/database/connection.js';

describe('the PostgreSQL versions Till runs on', () => {
  it('takes 15 and later, and names the major version it refuses', () => {
    expect(unsupportedPostgres(150000)).toBeNull();
    expect(unsupportedPostgres(170004)).toBeNull();
    expect(unsupportedPostgres(140011)?.message).toBe(
      'Till needs PostgreSQL 15 or later; this server runs PostgreSQL 14',
    );
    expect(unsupportedPostgres(Number.NaN)?.message).toBe(
      'Till needs PostgreSQL 15 or later; this server runs PostgreSQL unknown',
    );
  });
});
