import { call } from '@postbus/testing';
import { apiDocument } from '../src/http/api-routes';
import { startTestGateway, type TestGateway } from './helpers';

describe('the OpenAPI document built without starting the gateway', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway();
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it('is the document a running gateway serves at /v1/openapi.json (the SDKs generate their types from it)', async () => {
    const served = await call(gw.url, 'GET', '/v1/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });
});
