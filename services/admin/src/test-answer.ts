/** What the panel's fetch gets from the gateway in the panel's tests: a status and a JSON body (an empty one for undefined). */
export const gatewayAnswer = (status: number, body?: unknown) =>
  Promise.resolve({
    status,
    ok: status < 300,
    statusText: '',
    text: () => Promise.resolve(body === undefined ? '' : JSON.stringify(body)),
  });
