import type { TObject, TSchema } from '@sinclair/typebox';
import {
  CreateSenderDomainRequest,
  CreateTrackingDomainRequest,
  SenderDomain,
  SenderDomainIdParam,
  SenderDomainList,
  TrackingDomain,
  TrackingDomainIdParam,
  TrackingDomainList,
} from '@postbus/contracts';
import { ConflictError, NotFoundError } from '@postbus/errors';
import type { DnsLookup } from '../../clients/dns-lookup';
import { generateDkimKey, requiredRecords, trackingRecords } from '../../domain/dns-records';
import { DomainVerification, normaliseDomain, ownershipAsRequired } from '../../domain/domain-verification';
import type { SecretBox } from '@postbus/crypto';
import type { DomainDoc, DomainKind } from '../../domain/ports/domains';
import type { DomainRepository } from '../../model/domain.repository';
import { defineRoute, type RouteSpec } from '../route';
import type { AuthenticatedClient } from '../auth';

export interface DomainRouteDeps {
  domains: DomainRepository;
  dns: DnsLookup;
  secrets: SecretBox;
  /** What a sender domain's SPF record must include: the sending service's own SPF. */
  spfInclude: string;
  /** Where a tracking domain's CNAME must point. */
  trackingHost: string;
  /** Where a sender domain's return-path domain's MX must point: the inbound service. */
  inboundMxHost: string;
}

const verification = (d: DomainDoc) => (d.checkedAt && d.checks ? { checked_at: d.checkedAt.toISOString(), records: d.checks } : null);
const common = (d: DomainDoc) => ({
  id: String(d._id),
  domain: d.domain,
  status: d.status,
  verified_at: d.verifiedAt ? d.verifiedAt.toISOString() : null,
  created_at: d.createdAt.toISOString(),
});

const toSenderDomain = (d: DomainDoc): SenderDomain =>
  ({ ...common(d), dkim_selector: d.dkim?.selector ?? '', records: d.records, verification: verification(d) }) as SenderDomain;
// A tracking domain stored before its token was required shows it as required (see ownershipRequired).
const toTrackingDomain = (d: DomainDoc): TrackingDomain =>
  ({ ...common(d), records: ownershipAsRequired(d.records, true), verification: verification(d) }) as TrackingDomain;

interface KindSpec {
  kind: DomainKind;
  /** e.g. /v1/sender-domains */
  base: string;
  param: string;
  paramSchema: TObject;
  tag: string;
  noun: string;
  operation: string;
  createBody: TSchema;
  schema: TSchema;
  listSchema: TSchema;
  present: (d: DomainDoc) => unknown;
  /** The kind's own part of a new domain: its records (and a sender domain's DKIM key). */
  prepare: (domain: string) => Promise<Pick<DomainDoc, 'records' | 'dkim'>>;
}

/** List, read, verify and delete are the same for both kinds of domain; creation differs. */
function routesFor(spec: KindSpec, { domains, dns, spfInclude, inboundMxHost }: DomainRouteDeps): RouteSpec[] {
  const verification = new DomainVerification({ domains, dns, spfInclude, inboundMxHost });
  const notFound = `No such ${spec.noun} for this client.`;
  // The path schema has validated the id (a 24-digit hex string) before any handler runs.
  const idOf = (params: Record<string, unknown>) => {
    const id = params[spec.param];
    return typeof id === 'string' ? id : '';
  };
  const owned = async (client: AuthenticatedClient, id: string) => {
    const found = await domains.get(client.clientId, spec.kind, id);
    if (!found) throw new NotFoundError(notFound);
    return found;
  };
  const path = `${spec.base}/:${spec.param}`;
  return [
    defineRoute({
      method: 'post',
      path: spec.base,
      operationId: `create${spec.operation}`,
      summary: `Add a ${spec.noun}`,
      tag: spec.tag,
      scope: 'full',
      body: spec.createBody,
      responses: { 201: { description: `The ${spec.noun}, with the DNS records to publish`, schema: spec.schema } },
      handle: async ({ body, client }) => {
        const domain = normaliseDomain((body as { domain: string }).domain);
        const created = await verification.add(client.clientId, spec.kind, domain, spec.prepare);
        if (created === 'exists')
          throw new ConflictError(`${spec.kind}-domain-exists`, `${domain} is already one of this client's ${spec.noun}s.`);
        return { status: 201, body: spec.present(created) };
      },
    }),
    defineRoute({
      method: 'get',
      path: spec.base,
      operationId: `list${spec.operation}s`,
      summary: `List ${spec.noun}s`,
      tag: spec.tag,
      scope: 'full',
      responses: { 200: { description: `The ${spec.noun}s, oldest first`, schema: spec.listSchema } },
      handle: async ({ client }) => ({ status: 200, body: { data: (await domains.list(client.clientId, spec.kind)).map(spec.present) } }),
    }),
    defineRoute({
      method: 'get',
      path,
      tenant: { keptBy: 'gateway', param: spec.param },
      operationId: `get${spec.operation}`,
      summary: `Get a ${spec.noun}`,
      tag: spec.tag,
      scope: 'full',
      params: spec.paramSchema,
      responses: { 200: { description: `The ${spec.noun}`, schema: spec.schema } },
      handle: async ({ params, client }) => ({ status: 200, body: spec.present(await owned(client, idOf(params))) }),
    }),
    defineRoute({
      method: 'post',
      path: `${path}/verify`,
      tenant: { keptBy: 'gateway', param: spec.param },
      operationId: `verify${spec.operation}`,
      summary: `Check the DNS records of a ${spec.noun}`,
      tag: spec.tag,
      scope: 'full',
      params: spec.paramSchema,
      responses: { 200: { description: `The ${spec.noun} with what DNS answered for each record`, schema: spec.schema } },
      handle: async ({ params, client }) => {
        const checked = await verification.verify(await owned(client, idOf(params)));
        if (!checked) throw new NotFoundError(notFound);
        return { status: 200, body: spec.present(checked) };
      },
    }),
    defineRoute({
      method: 'delete',
      path,
      tenant: { keptBy: 'gateway', param: spec.param },
      operationId: `delete${spec.operation}`,
      summary: `Delete a ${spec.noun}`,
      tag: spec.tag,
      scope: 'full',
      params: spec.paramSchema,
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, client }) => {
        if (!(await domains.delete(client.clientId, spec.kind, idOf(params)))) throw new NotFoundError(notFound);
        return { status: 204 };
      },
    }),
  ];
}

/**
 * Sender domains (the seed's first prerequisite: a DKIM key per domain, SPF and DMARC) and tracking
 * domains (optional: a CNAME to the tracking host and the client's ownership token), both verified
 * in real DNS.
 */
export function domainRoutes(deps: DomainRouteDeps): RouteSpec[] {
  return [
    ...routesFor(
      {
        kind: 'sender',
        base: '/v1/sender-domains',
        param: 'senderDomainId',
        paramSchema: SenderDomainIdParam,
        tag: 'Sender domains',
        noun: 'sender domain',
        operation: 'SenderDomain',
        createBody: CreateSenderDomainRequest,
        schema: SenderDomain,
        listSchema: SenderDomainList,
        present: toSenderDomain,
        prepare: async (domain) => {
          const key = await generateDkimKey();
          return {
            dkim: { selector: key.selector, publicKey: key.publicKey, privateKey: deps.secrets.seal(key.privateKeyPem) },
            records: requiredRecords(domain, key.selector, key.publicKey, deps.spfInclude, deps.inboundMxHost),
          };
        },
      },
      deps,
    ),
    ...routesFor(
      {
        kind: 'tracking',
        base: '/v1/tracking-domains',
        param: 'trackingDomainId',
        paramSchema: TrackingDomainIdParam,
        tag: 'Tracking domains',
        noun: 'tracking domain',
        operation: 'TrackingDomain',
        createBody: CreateTrackingDomainRequest,
        schema: TrackingDomain,
        listSchema: TrackingDomainList,
        present: toTrackingDomain,
        prepare: (domain) => Promise.resolve({ dkim: null, records: trackingRecords(domain, deps.trackingHost) }),
      },
      deps,
    ),
  ];
}
