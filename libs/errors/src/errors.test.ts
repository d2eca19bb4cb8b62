import { NotFoundError, problemFor, ValidationError } from './index';

describe('problemFor', () => {
  it('turns an AppError into its RFC 9457 body with field pointers', () => {
    const { problem } = problemFor(
      new ValidationError('1 field is invalid', [{ pointer: '/email', message: 'must be an email' }]),
      'req_1',
    );
    expect(problem).toEqual({
      type: '/problems/validation-failed',
      title: 'The request is invalid',
      status: 400,
      detail: '1 field is invalid',
      errors: [{ pointer: '/email', message: 'must be an email' }],
      request_id: 'req_1',
    });
  });

  it('hides the message of anything that is not an AppError', () => {
    const { problem } = problemFor(new Error('connection to 10.0.0.3 refused'));
    expect(problem.status).toBe(500);
    expect(JSON.stringify(problem)).not.toContain('10.0.0.3');
  });

  it('turns an unreachable database into a 503 with Retry-After', () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { name: 'MongoServerSelectionError' });
    const { problem, headers } = problemFor(unreachable);
    expect(problem.status).toBe(503);
    expect(headers['Retry-After']).toBe('5');
    expect(JSON.stringify(problem)).not.toContain('27017');
  });

  it('keeps the status of a typed error', () => {
    expect(problemFor(new NotFoundError()).problem.status).toBe(404);
  });
});
