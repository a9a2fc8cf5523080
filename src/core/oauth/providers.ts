/**
 * The social providers Till knows by name (spec §6), as data: where to send the browser, where to trade the code,
 * where the profile lives, and how a provider's profile document maps to a user. Endpoints and defaults follow
 * Better Auth 1.7's social providers so that an app moving to Till keeps its provider registrations.
 */

/** What Till needs from any provider's profile. `email` may be missing (Reddit, TikTok): sign-in then fails. */
export interface ProviderProfile {
  id: string;
  name: string;
  email: string | null;
  emailVerified: boolean;
  image: string | null;
}

type Raw = Record<string, any>;

export interface ProviderDefinition {
  id: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** Absent: the profile is read from the id_token the token endpoint returned. */
  userinfoEndpoint?: string;
  /** Dropbox and VK want a POST; VK also wants the token and client id in the form rather than a header. */
  userinfoRequest?: 'get' | 'post' | 'post-form';
  scopes: string[];
  /** TikTok joins scopes with commas. */
  scopeSeparator?: string;
  pkce: boolean;
  tokenAuth: 'post' | 'basic';
  /** TikTok names its client id `client_key`. */
  clientIdParam?: string;
  authorizationParams?: Record<string, string>;
  /** Set where the provider's ID tokens can be verified, enabling ID-token sign-in. */
  idToken?: { issuer: string; jwksUri: string };
  /** GitHub hides private addresses from /user: they come from this list instead. */
  emailsEndpoint?: string;
  mapProfile(raw: Raw): ProviderProfile;
}

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;
const bool = (value: unknown): boolean => value === true || value === 'true' || value === 1;

/** Standard OIDC claims, for OpenID providers and generic ones. */
export function mapOidcClaims(raw: Raw): ProviderProfile {
  const joined = [raw.given_name, raw.family_name].filter((part) => typeof part === 'string' && part).join(' ');
  return {
    id: str(raw.sub) ?? '',
    name: str(raw.name) ?? str(raw.preferred_username) ?? (joined || (str(raw.email)?.split('@')[0] ?? '')),
    email: str(raw.email),
    emailVerified: bool(raw.email_verified),
    image: str(raw.picture),
  };
}

const catalogue: ProviderDefinition[] = [
  {
    id: 'apple',
    authorizationEndpoint: 'https://appleid.apple.com/auth/authorize',
    tokenEndpoint: 'https://appleid.apple.com/auth/token',
    scopes: ['email', 'name'],
    pkce: true,
    tokenAuth: 'post',
    // Apple posts the callback when name or email are asked for; /callback/:id turns the POST into a GET.
    authorizationParams: { response_mode: 'form_post' },
    idToken: { issuer: 'https://appleid.apple.com', jwksUri: 'https://appleid.apple.com/auth/keys' },
    mapProfile: (raw) => ({ ...mapOidcClaims(raw), image: null }),
  },
  {
    id: 'discord',
    authorizationEndpoint: 'https://discord.com/oauth2/authorize',
    tokenEndpoint: 'https://discord.com/api/oauth2/token',
    userinfoEndpoint: 'https://discord.com/api/users/@me',
    scopes: ['identify', 'email'],
    pkce: false,
    tokenAuth: 'post',
    mapProfile: (raw) => {
      const id = str(raw.id) ?? '';
      const avatar = str(raw.avatar);
      const image = avatar
        ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.${avatar.startsWith('a_') ? 'gif' : 'png'}`
        : /^\d+$/.test(id)
          ? `https://cdn.discordapp.com/embed/avatars/${raw.discriminator === '0' || !raw.discriminator ? Number((BigInt(id) >> 22n) % 6n) : Number(raw.discriminator) % 5}.png`
          : null;
      return {
        id,
        name: str(raw.global_name) ?? str(raw.username) ?? '',
        email: str(raw.email),
        emailVerified: bool(raw.verified),
        image,
      };
    },
  },
  {
    id: 'facebook',
    authorizationEndpoint: 'https://www.facebook.com/v21.0/dialog/oauth',
    tokenEndpoint: 'https://graph.facebook.com/v21.0/oauth/access_token',
    userinfoEndpoint: 'https://graph.facebook.com/me?fields=id,name,email,picture',
    scopes: ['email', 'public_profile'],
    pkce: false,
    tokenAuth: 'post',
    idToken: {
      issuer: 'https://www.facebook.com',
      jwksUri: 'https://limited.facebook.com/.well-known/oauth/openid/jwks/',
    },
    mapProfile: (raw) =>
      raw.sub !== undefined
        ? mapOidcClaims(raw) // a Limited Login ID token
        : {
            id: str(raw.id) ?? '',
            name: str(raw.name) ?? '',
            email: str(raw.email),
            emailVerified: bool(raw.email_verified),
            image: str(raw.picture?.data?.url),
          },
  },
  {
    id: 'github',
    authorizationEndpoint: 'https://github.com/login/oauth/authorize',
    tokenEndpoint: 'https://github.com/login/oauth/access_token',
    userinfoEndpoint: 'https://api.github.com/user',
    emailsEndpoint: 'https://api.github.com/user/emails',
    scopes: ['read:user', 'user:email'],
    pkce: true,
    tokenAuth: 'post',
    mapProfile: (raw) => {
      const emails: Raw[] = Array.isArray(raw.emails) ? raw.emails : [];
      const primary = emails.find((entry) => entry.primary) ?? emails[0];
      const email = str(raw.email) ?? str(primary?.email);
      const listed = emails.find((entry) => entry.email === email);
      return {
        id: str(raw.id) ?? '',
        name: str(raw.name) ?? str(raw.login) ?? '',
        email,
        emailVerified: bool(listed?.verified),
        image: str(raw.avatar_url),
      };
    },
  },
  {
    id: 'microsoft',
    authorizationEndpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenEndpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    scopes: ['openid', 'profile', 'email', 'User.Read', 'offline_access'],
    pkce: true,
    tokenAuth: 'post',
    mapProfile: (raw) => {
      const email = str(raw.email) ?? str(raw.preferred_username);
      const verifiedLists = [raw.verified_primary_email, raw.verified_secondary_email].flat().filter(Boolean);
      return {
        id: str(raw.sub) ?? '',
        name: str(raw.name) ?? email ?? '',
        email,
        emailVerified:
          raw.email_verified !== undefined ? bool(raw.email_verified) : email !== null && verifiedLists.includes(email),
        image: null,
      };
    },
  },
  {
    id: 'google',
    authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenEndpoint: 'https://oauth2.googleapis.com/token',
    userinfoEndpoint: 'https://openidconnect.googleapis.com/v1/userinfo',
    scopes: ['openid', 'email', 'profile'],
    pkce: true,
    tokenAuth: 'post',
    idToken: { issuer: 'https://accounts.google.com', jwksUri: 'https://www.googleapis.com/oauth2/v3/certs' },
    mapProfile: mapOidcClaims,
  },
  {
    id: 'huggingface',
    authorizationEndpoint: 'https://huggingface.co/oauth/authorize',
    tokenEndpoint: 'https://huggingface.co/oauth/token',
    userinfoEndpoint: 'https://huggingface.co/oauth/userinfo',
    scopes: ['openid', 'profile', 'email'],
    pkce: true,
    tokenAuth: 'post',
    mapProfile: mapOidcClaims,
  },
  {
    id: 'spotify',
    authorizationEndpoint: 'https://accounts.spotify.com/authorize',
    tokenEndpoint: 'https://accounts.spotify.com/api/token',
    userinfoEndpoint: 'https://api.spotify.com/v1/me',
    scopes: ['user-read-email'],
    pkce: true,
    tokenAuth: 'post',
    mapProfile: (raw) => ({
      id: str(raw.id) ?? '',
      name: str(raw.display_name) ?? '',
      email: str(raw.email),
      emailVerified: false,
      image: str(raw.images?.[0]?.url),
    }),
  },
  {
    id: 'twitch',
    authorizationEndpoint: 'https://id.twitch.tv/oauth2/authorize',
    tokenEndpoint: 'https://id.twitch.tv/oauth2/token',
    scopes: ['user:read:email', 'openid'],
    pkce: false,
    tokenAuth: 'post',
    // Twitch puts only what is asked for into its ID token.
    authorizationParams: {
      claims: JSON.stringify({
        id_token: { email: null, email_verified: null, picture: null, preferred_username: null },
      }),
    },
    idToken: { issuer: 'https://id.twitch.tv/oauth2', jwksUri: 'https://id.twitch.tv/oauth2/keys' },
    mapProfile: (raw) => ({ ...mapOidcClaims(raw), name: str(raw.preferred_username) ?? '' }),
  },
  {
    id: 'twitter',
    authorizationEndpoint: 'https://x.com/i/oauth2/authorize',
    tokenEndpoint: 'https://api.x.com/2/oauth2/token',
    userinfoEndpoint: 'https://api.x.com/2/users/me?user.fields=profile_image_url,confirmed_email',
    scopes: ['users.read', 'tweet.read', 'offline.access', 'users.email'],
    pkce: true,
    tokenAuth: 'basic',
    mapProfile: (raw) => {
      const data: Raw = raw.data ?? {};
      const email = str(data.confirmed_email) ?? str(data.email);
      return {
        id: str(data.id) ?? '',
        name: str(data.name) ?? str(data.username) ?? '',
        email,
        emailVerified: str(data.confirmed_email) !== null,
        image: str(data.profile_image_url),
      };
    },
  },
  {
    id: 'dropbox',
    authorizationEndpoint: 'https://www.dropbox.com/oauth2/authorize',
    tokenEndpoint: 'https://api.dropboxapi.com/oauth2/token',
    userinfoEndpoint: 'https://api.dropboxapi.com/2/users/get_current_account',
    userinfoRequest: 'post',
    scopes: ['account_info.read'],
    pkce: true,
    tokenAuth: 'post',
    authorizationParams: { token_access_type: 'offline' },
    mapProfile: (raw) => ({
      id: str(raw.account_id) ?? '',
      name: str(raw.name?.display_name) ?? '',
      email: str(raw.email),
      emailVerified: bool(raw.email_verified),
      image: str(raw.profile_photo_url),
    }),
  },
  {
    id: 'kick',
    authorizationEndpoint: 'https://id.kick.com/oauth/authorize',
    tokenEndpoint: 'https://id.kick.com/oauth/token',
    userinfoEndpoint: 'https://api.kick.com/public/v1/users',
    scopes: ['user:read'],
    pkce: true,
    tokenAuth: 'post',
    mapProfile: (raw) => {
      const user: Raw = raw.data?.[0] ?? {};
      // Kick only lets verified addresses sign in, as Better Auth assumes too.
      return {
        id: str(user.user_id) ?? '',
        name: str(user.name) ?? '',
        email: str(user.email),
        emailVerified: str(user.email) !== null,
        image: str(user.profile_picture),
      };
    },
  },
  {
    id: 'linkedin',
    authorizationEndpoint: 'https://www.linkedin.com/oauth/v2/authorization',
    tokenEndpoint: 'https://www.linkedin.com/oauth/v2/accessToken',
    userinfoEndpoint: 'https://api.linkedin.com/v2/userinfo',
    scopes: ['openid', 'profile', 'email'],
    pkce: false,
    tokenAuth: 'post',
    mapProfile: mapOidcClaims,
  },
  {
    id: 'gitlab',
    authorizationEndpoint: 'https://gitlab.com/oauth/authorize',
    tokenEndpoint: 'https://gitlab.com/oauth/token',
    userinfoEndpoint: 'https://gitlab.com/api/v4/user',
    scopes: ['read_user'],
    pkce: true,
    tokenAuth: 'post',
    mapProfile: (raw) => ({
      id: str(raw.id) ?? '',
      name: str(raw.name) ?? str(raw.username) ?? '',
      email: str(raw.email),
      emailVerified: raw.email_verified !== undefined ? bool(raw.email_verified) : Boolean(raw.confirmed_at),
      image: str(raw.avatar_url),
    }),
  },
  {
    id: 'tiktok',
    authorizationEndpoint: 'https://www.tiktok.com/v2/auth/authorize/',
    tokenEndpoint: 'https://open.tiktokapis.com/v2/oauth/token/',
    userinfoEndpoint: 'https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_large_url,display_name,username',
    scopes: ['user.info.profile'],
    scopeSeparator: ',',
    pkce: false,
    tokenAuth: 'post',
    clientIdParam: 'client_key',
    // TikTok shares no e-mail address, so it signs in only users it can find by account.
    mapProfile: (raw) => {
      const user: Raw = raw.data?.user ?? {};
      return {
        id: str(user.open_id) ?? '',
        name: str(user.display_name) ?? str(user.username) ?? '',
        email: str(user.email),
        emailVerified: false,
        image: str(user.avatar_large_url),
      };
    },
  },
  {
    id: 'reddit',
    authorizationEndpoint: 'https://www.reddit.com/api/v1/authorize',
    tokenEndpoint: 'https://www.reddit.com/api/v1/access_token',
    userinfoEndpoint: 'https://oauth.reddit.com/api/v1/me',
    scopes: ['identity'],
    pkce: false,
    tokenAuth: 'basic',
    authorizationParams: { duration: 'permanent' },
    mapProfile: (raw) => ({
      id: str(raw.id) ?? '',
      name: str(raw.name) ?? '',
      email: str(raw.email),
      emailVerified: bool(raw.has_verified_email),
      image: str(raw.icon_img)?.split('?')[0] ?? null,
    }),
  },
  {
    id: 'roblox',
    authorizationEndpoint: 'https://apis.roblox.com/oauth/v1/authorize',
    tokenEndpoint: 'https://apis.roblox.com/oauth/v1/token',
    userinfoEndpoint: 'https://apis.roblox.com/oauth/v1/userinfo',
    scopes: ['openid', 'profile'],
    pkce: true,
    tokenAuth: 'post',
    idToken: { issuer: 'https://apis.roblox.com/oauth/', jwksUri: 'https://apis.roblox.com/oauth/v1/certs' },
    mapProfile: (raw) => ({
      ...mapOidcClaims(raw),
      name: str(raw.nickname) ?? str(raw.preferred_username) ?? str(raw.name) ?? '',
    }),
  },
  {
    id: 'vk',
    authorizationEndpoint: 'https://id.vk.com/authorize',
    tokenEndpoint: 'https://id.vk.com/oauth2/auth',
    userinfoEndpoint: 'https://id.vk.com/oauth2/user_info',
    userinfoRequest: 'post-form',
    scopes: ['email', 'phone'],
    pkce: true,
    tokenAuth: 'post',
    mapProfile: (raw) => {
      const user: Raw = raw.user ?? {};
      const name = [user.first_name, user.last_name].filter((part) => typeof part === 'string' && part).join(' ');
      return {
        id: str(user.user_id) ?? '',
        name,
        email: str(user.email),
        emailVerified: bool(user.verified),
        image: str(user.avatar),
      };
    },
  },
  {
    id: 'zoom',
    authorizationEndpoint: 'https://zoom.us/oauth/authorize',
    tokenEndpoint: 'https://zoom.us/oauth/token',
    userinfoEndpoint: 'https://api.zoom.us/v2/users/me',
    // Zoom grants the scopes chosen for the app in its marketplace; asking for none asks for those.
    scopes: [],
    pkce: true,
    tokenAuth: 'basic',
    mapProfile: (raw) => ({
      id: str(raw.id) ?? '',
      name: str(raw.display_name) ?? ([raw.first_name, raw.last_name].filter(Boolean).join(' ') || ''),
      email: str(raw.email),
      emailVerified: raw.verified === 1 || raw.verified === true,
      image: str(raw.pic_url),
    }),
  },
];

export const PROVIDER_CATALOGUE: ReadonlyMap<string, ProviderDefinition> = new Map(
  catalogue.map((provider) => [provider.id, provider]),
);
