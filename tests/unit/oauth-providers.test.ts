import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config/index.js';
import { CATALOGUED_PROVIDER_IDS, loadOAuthConfig } from '../../src/core/config/index.js';
import { createProviderRegistry } from '../../src/core/oauth/client.js';
import { PROVIDER_CATALOGUE, type ProviderProfile } from '../../src/core/oauth/providers.js';

/** A representative profile document per provider (shapes from each provider's API documentation), and what it maps to. */
const SAMPLES: Record<string, [Record<string, unknown>, ProviderProfile]> = {
  apple: [
    {
      iss: 'https://appleid.apple.com',
      sub: '001234.abcd',
      email: 'a@privaterelay.appleid.com',
      email_verified: 'true',
    },
    { id: '001234.abcd', name: 'a', email: 'a@privaterelay.appleid.com', emailVerified: true, image: null },
  ],
  discord: [
    {
      id: '80351110224678912',
      username: 'nelly',
      global_name: 'Nelly',
      avatar: '8342729096ea3675442027381ff50dfe',
      email: 'nelly@discord.com',
      verified: true,
    },
    {
      id: '80351110224678912',
      name: 'Nelly',
      email: 'nelly@discord.com',
      emailVerified: true,
      image: 'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png',
    },
  ],
  facebook: [
    {
      id: '10158',
      name: 'Fay Book',
      email: 'fay@example.com',
      picture: { data: { url: 'https://fb.example/fay.jpg' } },
    },
    {
      id: '10158',
      name: 'Fay Book',
      email: 'fay@example.com',
      emailVerified: false,
      image: 'https://fb.example/fay.jpg',
    },
  ],
  github: [
    {
      id: 583231,
      login: 'octocat',
      name: null,
      email: null,
      avatar_url: 'https://avatars.githubusercontent.com/u/583231',
      emails: [{ email: 'octo@github.com', primary: true, verified: true }],
    },
    {
      id: '583231',
      name: 'octocat',
      email: 'octo@github.com',
      emailVerified: true,
      image: 'https://avatars.githubusercontent.com/u/583231',
    },
  ],
  microsoft: [
    {
      sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
      name: 'Megan Bowen',
      preferred_username: 'megan@contoso.com',
      verified_primary_email: ['megan@contoso.com'],
    },
    {
      id: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
      name: 'Megan Bowen',
      email: 'megan@contoso.com',
      emailVerified: true,
      image: null,
    },
  ],
  google: [
    {
      sub: '110169484474386276334',
      name: 'Gee Ogle',
      email: 'gee@gmail.com',
      email_verified: true,
      picture: 'https://lh3.googleusercontent.com/a/x',
    },
    {
      id: '110169484474386276334',
      name: 'Gee Ogle',
      email: 'gee@gmail.com',
      emailVerified: true,
      image: 'https://lh3.googleusercontent.com/a/x',
    },
  ],
  huggingface: [
    {
      sub: '6123',
      preferred_username: 'hugger',
      email: 'hug@hf.co',
      email_verified: false,
      picture: 'https://hf.co/avatar.png',
    },
    { id: '6123', name: 'hugger', email: 'hug@hf.co', emailVerified: false, image: 'https://hf.co/avatar.png' },
  ],
  spotify: [
    { id: 'wizzler', display_name: 'Wizz', email: 'wizz@spotify.com', images: [{ url: 'https://i.scdn.co/image/w' }] },
    {
      id: 'wizzler',
      name: 'Wizz',
      email: 'wizz@spotify.com',
      emailVerified: false,
      image: 'https://i.scdn.co/image/w',
    },
  ],
  twitch: [
    {
      sub: '713936733',
      preferred_username: 'twitchy',
      email: 't@twitch.tv',
      email_verified: true,
      picture: 'https://static-cdn.jtvnw.net/t.png',
    },
    {
      id: '713936733',
      name: 'twitchy',
      email: 't@twitch.tv',
      emailVerified: true,
      image: 'https://static-cdn.jtvnw.net/t.png',
    },
  ],
  twitter: [
    {
      data: {
        id: '2244994945',
        name: 'X Dev',
        username: 'XDevelopers',
        confirmed_email: 'dev@x.com',
        profile_image_url: 'https://pbs.twimg.com/x.jpg',
      },
    },
    { id: '2244994945', name: 'X Dev', email: 'dev@x.com', emailVerified: true, image: 'https://pbs.twimg.com/x.jpg' },
  ],
  dropbox: [
    {
      account_id: 'dbid:AAH4f99',
      name: { display_name: 'Franz Ferdinand' },
      email: 'franz@dropbox.com',
      email_verified: true,
      profile_photo_url: 'https://dl.dropbox.com/f.jpg',
    },
    {
      id: 'dbid:AAH4f99',
      name: 'Franz Ferdinand',
      email: 'franz@dropbox.com',
      emailVerified: true,
      image: 'https://dl.dropbox.com/f.jpg',
    },
  ],
  kick: [
    { data: [{ user_id: 123, name: 'kicker', email: 'k@kick.com', profile_picture: 'https://kick.com/k.png' }] },
    { id: '123', name: 'kicker', email: 'k@kick.com', emailVerified: true, image: 'https://kick.com/k.png' },
  ],
  linkedin: [
    {
      sub: '782bbtaQ',
      name: 'Lynn Kedin',
      given_name: 'Lynn',
      family_name: 'Kedin',
      email: 'lynn@example.com',
      email_verified: true,
      picture: 'https://media.licdn.com/l.jpg',
    },
    {
      id: '782bbtaQ',
      name: 'Lynn Kedin',
      email: 'lynn@example.com',
      emailVerified: true,
      image: 'https://media.licdn.com/l.jpg',
    },
  ],
  gitlab: [
    {
      id: 1,
      username: 'john_smith',
      name: 'John Smith',
      email: 'john@example.com',
      confirmed_at: '2012-05-23T09:05:22Z',
      avatar_url: 'https://gitlab.com/j.png',
    },
    { id: '1', name: 'John Smith', email: 'john@example.com', emailVerified: true, image: 'https://gitlab.com/j.png' },
  ],
  tiktok: [
    {
      data: {
        user: { open_id: '723f24d7', display_name: 'Tik Tok', avatar_large_url: 'https://p16.tiktokcdn.com/t.jpg' },
      },
    },
    { id: '723f24d7', name: 'Tik Tok', email: null, emailVerified: false, image: 'https://p16.tiktokcdn.com/t.jpg' },
  ],
  reddit: [
    {
      id: 'abc12',
      name: 'spez',
      has_verified_email: true,
      icon_img: 'https://styles.redditmedia.com/i.png?width=256&s=x',
    },
    { id: 'abc12', name: 'spez', email: null, emailVerified: true, image: 'https://styles.redditmedia.com/i.png' },
  ],
  roblox: [
    {
      sub: '1516563360',
      name: 'Rob Lox',
      nickname: 'robby',
      preferred_username: 'roblox_rob',
      picture: 'https://tr.rbxcdn.com/r.png',
    },
    { id: '1516563360', name: 'robby', email: null, emailVerified: false, image: 'https://tr.rbxcdn.com/r.png' },
  ],
  vk: [
    {
      user: {
        user_id: '1234567890',
        first_name: 'Ivan',
        last_name: 'Ivanov',
        email: 'ivan@vk.com',
        avatar: 'https://vk.com/i.jpg',
        verified: false,
      },
    },
    {
      id: '1234567890',
      name: 'Ivan Ivanov',
      email: 'ivan@vk.com',
      emailVerified: false,
      image: 'https://vk.com/i.jpg',
    },
  ],
  zoom: [
    {
      id: 'KDcuGIm1QgePTO8WbOqwIQ',
      first_name: 'Jill',
      last_name: 'Chill',
      display_name: 'Jill Chill',
      email: 'jchill@example.com',
      verified: 1,
      pic_url: 'https://zoom.us/p/j.jpg',
    },
    {
      id: 'KDcuGIm1QgePTO8WbOqwIQ',
      name: 'Jill Chill',
      email: 'jchill@example.com',
      emailVerified: true,
      image: 'https://zoom.us/p/j.jpg',
    },
  ],
};

describe('provider catalogue', () => {
  it('holds every provider of the spec, with endpoints over https', () => {
    expect([...PROVIDER_CATALOGUE.keys()].sort()).toEqual([...CATALOGUED_PROVIDER_IDS].sort());
    for (const provider of PROVIDER_CATALOGUE.values()) {
      expect(provider.authorizationEndpoint).toMatch(/^https:\/\//);
      expect(provider.tokenEndpoint).toMatch(/^https:\/\//);
      if (provider.userinfoEndpoint) expect(provider.userinfoEndpoint).toMatch(/^https:\/\//);
    }
  });

  for (const id of CATALOGUED_PROVIDER_IDS) {
    it(`maps a ${id} profile`, () => {
      const [raw, expected] = SAMPLES[id]!;
      expect(PROVIDER_CATALOGUE.get(id)!.mapProfile(raw)).toEqual(expected);
    });
  }

  it('builds an authorization URL with the provider quirks (TikTok: client_key and comma-joined scopes)', async () => {
    const registry = createProviderRegistry(
      loadOAuthConfig({ TILL_OAUTH_TIKTOK_CLIENT_ID: 'key', TILL_OAUTH_TIKTOK_CLIENT_SECRET: 's' }),
      { now: () => new Date() },
    );
    const tiktok = (await registry.get('tiktok'))!;
    const url = new URL(
      registry.authorizationUrl(tiktok, {
        state: 's',
        codeVerifier: 'v',
        redirectUri: 'https://app/cb',
        scopes: ['video.list'],
      }),
    );
    expect(url.searchParams.get('client_key')).toBe('key');
    expect(url.searchParams.get('client_id')).toBeNull();
    expect(url.searchParams.get('scope')).toBe('user.info.profile,video.list');
    expect(url.searchParams.get('code_challenge')).toBeNull();
  });
});

describe('OAuth configuration', () => {
  it('reads catalogued providers from TILL_OAUTH_<PROVIDER>_* and generic ones from TILL_OAUTH_PROVIDERS', () => {
    const config = loadOAuthConfig({
      TILL_OAUTH_GITHUB_CLIENT_ID: 'gh-id',
      TILL_OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
      TILL_OAUTH_GOOGLE_CLIENT_ID: 'g-id',
      TILL_OAUTH_GOOGLE_SCOPES: 'openid email',
      TILL_OAUTH_PROVIDERS: JSON.stringify([
        {
          id: 'keycloak',
          issuer: 'https://id.example/realms/x/',
          clientId: 'kc',
          clientSecret: 'kcs',
          scopes: ['openid', 'groups'],
        },
        {
          id: 'legacy',
          authorizationEndpoint: 'https://l.example/auth',
          tokenEndpoint: 'https://l.example/token',
          clientId: 'l',
        },
      ]),
      TILL_OAUTH_TRUSTED_PROVIDERS: 'github, keycloak',
      TILL_OAUTH_DISABLE_SIGNUP: 'true',
      TILL_OAUTH_ALLOW_UNLINKING_ALL: 'on',
    });
    expect(config.providers).toEqual([
      { id: 'github', clientId: 'gh-id', clientSecret: 'gh-secret' },
      { id: 'google', clientId: 'g-id', clientSecret: '', scopes: ['openid', 'email'] },
      expect.objectContaining({
        id: 'keycloak',
        issuer: 'https://id.example/realms/x',
        clientId: 'kc',
        scopes: ['openid', 'groups'],
      }),
      expect.objectContaining({ id: 'legacy', tokenEndpoint: 'https://l.example/token', clientSecret: '' }),
    ]);
    expect(config.trustedProviders).toEqual(['github', 'keycloak']);
    expect(config.disableSignUp).toBe(true);
    expect(config.disableImplicitSignUp).toBe(false);
    expect(config.allowDifferentEmails).toBe(false);
    expect(config.allowUnlinkingAll).toBe(true);
  });

  it('refuses malformed generic providers', () => {
    expect(() => loadOAuthConfig({ TILL_OAUTH_PROVIDERS: '{' })).toThrow(ConfigError);
    expect(() => loadOAuthConfig({ TILL_OAUTH_PROVIDERS: JSON.stringify([{ id: 'x', clientId: 'c' }]) })).toThrow(
      /needs an issuer/,
    );
    expect(() =>
      loadOAuthConfig({ TILL_OAUTH_PROVIDERS: JSON.stringify([{ id: 'Bad Id', issuer: 'https://i', clientId: 'c' }]) }),
    ).toThrow(/id must be/);
    expect(() =>
      loadOAuthConfig({
        TILL_OAUTH_GITHUB_CLIENT_ID: 'a',
        TILL_OAUTH_PROVIDERS: JSON.stringify([{ id: 'github', issuer: 'https://i', clientId: 'c' }]),
      }),
    ).toThrow(/configured twice/);
  });
});
