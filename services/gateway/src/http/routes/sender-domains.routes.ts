import { CreateSenderDomainRequest, SenderDomain, SenderDomainIdParam, SenderDomainList } from '@postbus/contracts';
import { ConflictError, NotFoundError } from '@postbus/errors';
import type { DnsLookup } from '../../dns-lookup';
import type { SecretBox } from '../../domain/secret-box';
import { checkRecords, generateDkimKey, requiredRecords } from '../../domain/sender-domain';
import type { SenderDomainDoc, SenderDomainRepository } from '../../model/sender-domain.repository';
import { defineRoute, type RouteSpec } from '../route';

export interface SenderDomainDeps {
  domains: SenderDomainRepository;
  dns: DnsLookup;
  secrets: SecretBox;
  /** What the SPF record must include: the sending service's own SPF. */
  spfInclude: string;
}

const NOT_FOUND = 'No such sender domain for this client.';

const toSenderDomain = (d: SenderDomainDoc): SenderDomain => ({
  id: String(d._id),
  domain: d.domain,
  status: d.status,
  dkim_selector: d.selector,
  records: d.records,
  verification: d.checkedAt && d.checks ? { checked_at: d.checkedAt.toISOString(), records: d.checks } : null,
  verified_at: d.verifiedAt ? d.verifiedAt.toISOString() : null,
  created_at: d.createdAt.toISOString(),
});

/** Sender domains (the seed's first prerequisite): a DKIM key per domain and real DNS verification. */
export function senderDomainRoutes({ domains, dns, secrets, spfInclude }: SenderDomainDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/sender-domains',
      operationId: 'createSenderDomain',
      summary: 'Add a sender domain',
      tag: 'Sender domains',
      scope: 'full',
      body: CreateSenderDomainRequest,
      responses: { 201: { description: 'The domain, with the DNS records to publish', schema: SenderDomain } },
      handle: async ({ body, client }) => {
        const domain = body.domain.toLowerCase().replace(/\.$/, '');
        const key = await generateDkimKey();
        const created = await domains.create({
          clientId: client.clientId,
          domain,
          selector: key.selector,
          publicKey: key.publicKey,
          privateKey: secrets.seal(key.privateKeyPem),
          records: requiredRecords(domain, key.selector, key.publicKey, spfInclude),
          status: 'pending',
          checks: null,
          checkedAt: null,
          verifiedAt: null,
          createdAt: new Date(),
        });
        if (created === 'exists')
          throw new ConflictError('sender-domain-exists', `${domain} is already one of this client's sender domains.`);
        return { status: 201, body: toSenderDomain(created) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/sender-domains',
      operationId: 'listSenderDomains',
      summary: 'List sender domains',
      tag: 'Sender domains',
      scope: 'full',
      responses: { 200: { description: 'The sender domains, oldest first', schema: SenderDomainList } },
      handle: async ({ client }) => ({ status: 200, body: { data: (await domains.list(client.clientId)).map(toSenderDomain) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/sender-domains/:senderDomainId',
      operationId: 'getSenderDomain',
      summary: 'Get a sender domain',
      tag: 'Sender domains',
      scope: 'full',
      params: SenderDomainIdParam,
      responses: { 200: { description: 'The sender domain', schema: SenderDomain } },
      handle: async ({ params, client }) => {
        const found = await domains.get(client.clientId, params.senderDomainId);
        if (!found) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toSenderDomain(found) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/sender-domains/:senderDomainId/verify',
      operationId: 'verifySenderDomain',
      summary: 'Check the DNS records of a sender domain',
      tag: 'Sender domains',
      scope: 'full',
      params: SenderDomainIdParam,
      responses: { 200: { description: 'The domain with what DNS answered for each record', schema: SenderDomain } },
      handle: async ({ params, client }) => {
        const found = await domains.get(client.clientId, params.senderDomainId);
        if (!found) throw new NotFoundError(NOT_FOUND);
        const answers = await dns.txtOf(found.records.map((r) => r.name));
        const checked = await domains.recordCheck(
          client.clientId,
          params.senderDomainId,
          checkRecords(found.records, spfInclude, answers),
          new Date(),
        );
        if (!checked) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toSenderDomain(checked) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/sender-domains/:senderDomainId',
      operationId: 'deleteSenderDomain',
      summary: 'Delete a sender domain',
      tag: 'Sender domains',
      scope: 'full',
      params: SenderDomainIdParam,
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, client }) => {
        if (!(await domains.delete(client.clientId, params.senderDomainId))) throw new NotFoundError(NOT_FOUND);
        return { status: 204 };
      },
    }),
  ];
}
