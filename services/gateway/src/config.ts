import { Type } from '@sinclair/typebox';
import { CommonConfig, InternalApiConfig, RequiredInProduction, TemplateEngineConfig } from '@postbus/config';

export const GatewayConfig = Type.Object({
  ...CommonConfig,
  ...InternalApiConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'public HTTP port' }),
  INTERNAL_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 8086,
    description: "the gateway's internal listener on INTERNAL_HOST: /metrics (never on the public port)",
  }),
  GATEWAY_DB_NAME: Type.String({ default: 'postbus_gateway', pattern: '^[A-Za-z0-9_-]+$', description: "the gateway's own database" }),
  USERS_URL: Type.String({
    default: 'http://127.0.0.1:8081',
    pattern: '^https?://',
    description: "base URL of the users service's internal API",
  }),
  MAILER_URL: Type.String({
    default: 'http://127.0.0.1:8082',
    pattern: '^https?://',
    description: "base URL of the mailer service's internal API (the message log)",
  }),
  WEBHOOKS_URL: Type.String({
    default: 'http://127.0.0.1:8083',
    pattern: '^https?://',
    description: "base URL of the webhook dispatcher's internal API (webhook endpoints and their deliveries)",
  }),
  ERASURE_URL: Type.String({
    default: 'http://127.0.0.1:8085',
    pattern: '^https?://',
    description: "base URL of the erasure service's internal API (erasure queue and audit)",
  }),
  PAYMENTS_URL: Type.String({
    default: 'http://127.0.0.1:8084',
    pattern: '^https?://',
    description: "base URL of the payments service's internal API (payments and revenue)",
  }),
  BODY_LIMIT: Type.String({ default: '1mb', pattern: '^\\d+(b|kb|mb)$', description: 'largest accepted request body' }),
  KAFKA_ACK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 5000,
    description: 'how long a request waits for the broker before answering 503',
  }),
  RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 0,
    default: 5000,
    description: 'requests a second per client, counted by all gateway instances together (sliding window); 0 turns the limit off',
  }),
  MESSAGE_RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 0,
    default: 5000,
    description:
      'messages a second per client (a send is one, a batch one per item), counted by all gateway instances together beside the requests; 0 turns the limit off',
  }),
  BODY_BYTES_IN_FLIGHT_PER_CLIENT: Type.Integer({
    minimum: 0,
    default: 33_554_432,
    description:
      "request body bytes one client may have in flight in one gateway instance at once (a body's Content-Length, or the send limit when it has none); more get 429 with Retry-After, and one request alone always passes; 0: no limit",
  }),
  RATE_LIMIT_SHARE_MS: Type.Integer({
    minimum: 10,
    maximum: 5_000,
    default: 100,
    description:
      'how often each gateway instance shares its rate-limit counts on the bus (a limit can overshoot by what others admit meanwhile)',
  }),
  AUTH_FAILURE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 20,
    description:
      "failed API-key authentications per (client id, address) a minute; past it that client's keys are refused from that address with 429, except keys that already authenticated from there; 0: no limit",
  }),
  EDGE_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 1200,
    description:
      "requests to /t/* (opens, clicks, unsubscribes) per client address a minute (mail providers' image proxies share addresses); 0: no limit",
  }),
  TRUST_PROXY: Type.String({
    default: '',
    pattern: '^[A-Za-z0-9.:/, _-]*$',
    description:
      "which proxies' X-Forwarded-For names the client address (express 'trust proxy': a hop count, loopback, or addresses/CIDRs); empty: none",
  }),
  PUBLIC_BASE_URL: Type.String({
    default: '',
    pattern: '^(https?://[^/]+/?)?$',
    description:
      "the gateway's public origin (the mailer's links use it too): a browser request with credentials whose Origin is neither it nor the origin the request was addressed to is refused; empty: the addressed origin only. https here means a TLS proxy in front, which TRUST_PROXY must name (the gateway warns otherwise): requests are then seen as https and the admin panel's cookie is Secure and named __Host-…",
  }),
  DNS_SERVERS: Type.String({
    default: '',
    pattern: '^([^,\\s]+(,[^,\\s]+)*)?$',
    description: 'resolvers for domain verification (host or host:port, comma-separated); empty: the system resolvers',
  }),
  SPF_INCLUDE: Type.String({
    default: 'spf.postbus.local',
    pattern: '^[A-Za-z0-9.-]+$',
    description: "the domain whose SPF record lists the sending service's addresses; sender domains must include it",
  }),
  INBOUND_MX_HOST: Type.String({
    default: 'mx.postbus.local',
    pattern: '^[A-Za-z0-9.-]+$',
    description:
      "the inbound service's host: each sender domain's return-path domain (pb-bounces.<domain>) has an MX record to it, so that bounces and complaints reach Postbus",
  }),
  TRACKING_HOST: Type.String({
    default: 'track.postbus.local',
    pattern: '^[A-Za-z0-9.-]+$',
    description: 'the host tracking domains point to with a CNAME (the gateway serving /t/*)',
  }),
  SECRETS_KEY: Type.String({
    default: '',
    [RequiredInProduction]: true,
    pattern: '^([A-Za-z0-9+/]{43}=)?$',
    description: 'AES-256-GCM key (32 bytes, base64) sealing DKIM private keys; empty: a random one per process (development only)',
  }),
  SESSION_SECRET: Type.String({
    default: '',
    [RequiredInProduction]: true,
    description: 'HS256 secret of admin sessions (32+ characters), shared by every gateway instance; empty: a random one per process',
    pattern: '^(|.{32,})$',
  }),
  TRACKING_SECRET: Type.String({
    default: '',
    [RequiredInProduction]: true,
    description:
      'HS256 secret (32+ characters) shared with the mailer: signs tracking and unsubscribe links; empty: a random one per process (development only)',
    pattern: '^(|.{32,})$',
  }),
  SESSION_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 86_400, default: 900, description: 'lifetime of an admin session' }),
  AUTH_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    default: 10_000,
    description: 'how long project ownership is cached; verified API keys are cached for at most 1 s, whatever this says',
  }),
  CATALOG_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    default: 5_000,
    description: "how long a trigger reuses its catalog checks; another gateway instance's catalog change is seen within it",
  }),
  CATALOG_RESYNC_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    default: 600_000,
    description: 'how often the whole catalog is republished to the compacted catalog topic (it is also at start)',
  }),
  ...TemplateEngineConfig,
  TEMPLATE_POOL_WAIT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: "how long a preview or save may wait in its client's queue before it is answered 429",
  }),
});

export type GatewayConfig = typeof GatewayConfig.static;
