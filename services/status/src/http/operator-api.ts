import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { NotFoundError, UnsupportedMediaTypeError, ValidationError } from '@postbus/errors';
import { IMPACTS, INCIDENT_STATUSES, MAINTENANCE_STATUSES } from '../domain/model';
import type { StatusEngine } from '../domain/status-engine';
import { requireOperator } from './operator-auth';

const literals = <T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });
const ComponentIdList = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true });

export const OpenIncidentBody = Type.Object(
  {
    name: Text(200),
    body: Text(5000),
    status: Type.Optional(literals(INCIDENT_STATUSES)),
    impact: Type.Optional(literals(IMPACTS)),
    component_ids: Type.Optional(ComponentIdList),
  },
  { additionalProperties: false },
);
export const IncidentUpdateBody = Type.Object(
  { status: literals(INCIDENT_STATUSES), body: Text(5000), impact: Type.Optional(literals(IMPACTS)) },
  { additionalProperties: false },
);
export const ScheduleMaintenanceBody = Type.Object(
  {
    name: Text(200),
    body: Type.Optional(Text(5000)),
    component_ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50, uniqueItems: true }),
    scheduled_for: Type.String({ format: 'date-time' }),
    scheduled_until: Type.String({ format: 'date-time' }),
    impact: Type.Optional(literals(IMPACTS)),
  },
  { additionalProperties: false },
);
export const MaintenanceUpdateBody = Type.Object(
  { body: Text(5000), status: Type.Optional(literals(MAINTENANCE_STATUSES)) },
  { additionalProperties: false },
);

const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));

const compiled = new WeakMap<TSchema, ReturnType<typeof ajv.compile>>();

function validated<T extends TSchema>(schema: T, body: unknown): Static<T> {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  if (body === undefined || body === null || typeof body !== 'object') throw new ValidationError('The body must be a JSON object.');
  if (!validate(body)) {
    const errors = (validate.errors ?? []).map((e) => ({
      pointer: e.keyword === 'additionalProperties' ? `${e.instancePath}/${String(e.params['additionalProperty'])}` : e.instancePath || '/',
      message: e.keyword === 'additionalProperties' ? 'is not a known field' : (e.message ?? 'is invalid'),
    }));
    throw new ValidationError('The body does not match the schema.', errors);
  }
  return body;
}

const requireJson = (req: Request, _res: Response, next: NextFunction) => {
  if (!req.is('application/json')) return next(new UnsupportedMediaTypeError());
  next();
};

/** Express 5 passes rejected promises on; this keeps synchronous throws on the same path. */
const handle =
  (fn: (req: Request, res: Response) => void) =>
  (req: Request, res: Response, next: NextFunction): void => {
    try {
      fn(req, res);
    } catch (error) {
      next(error);
    }
  };

const param = (req: Request, name: string): string => String(req.params[name] ?? '');

/**
 * The operators' API (`/api/operator`, Bearer token): the whole state with every infrastructure
 * component and the latest checks, incidents opened and updated by hand, maintenances scheduled.
 */
export function operatorApi(engine: StatusEngine, token: string): Router {
  const router = express.Router();
  router.use('/api/operator', requireOperator(token));
  router.use('/api/operator', express.json({ limit: '64kb' }));

  router.get(
    '/api/operator/status',
    handle((_req, res) => {
      const snapshot = engine.snapshot();
      res.json({
        ...snapshot,
        components: snapshot.components.map((c) => ({ ...c, recent_checks: engine.recentChecks(c.id).slice(0, 10) })),
      });
    }),
  );
  router.get(
    '/api/operator/components/:id/checks',
    handle((req, res) => {
      res.json({ data: engine.recentChecks(param(req, 'id')) });
    }),
  );
  router.get(
    '/api/operator/incidents',
    handle((_req, res) => {
      res.json({ data: engine.snapshot().incidents });
    }),
  );
  router.get(
    '/api/operator/incidents/:id',
    handle((req, res) => {
      const incident = engine.incident(param(req, 'id'));
      if (!incident) throw new NotFoundError('There is no incident with this id.');
      res.json(incident);
    }),
  );
  router.post(
    '/api/operator/incidents',
    requireJson,
    handle((req, res) => {
      const body = validated(OpenIncidentBody, req.body);
      const incident = engine.openIncident({
        name: body.name,
        body: body.body,
        ...(body.status ? { status: body.status } : {}),
        ...(body.impact ? { impact: body.impact } : {}),
        ...(body.component_ids ? { componentIds: body.component_ids } : {}),
      });
      res.status(201).json(incident);
    }),
  );
  router.post(
    '/api/operator/incidents/:id/updates',
    requireJson,
    handle((req, res) => {
      const body = validated(IncidentUpdateBody, req.body);
      res.status(201).json(
        engine.addIncidentUpdate(param(req, 'id'), {
          status: body.status,
          body: body.body,
          ...(body.impact ? { impact: body.impact } : {}),
        }),
      );
    }),
  );
  router.get(
    '/api/operator/maintenances',
    handle((_req, res) => {
      res.json({ data: engine.snapshot().maintenances });
    }),
  );
  router.get(
    '/api/operator/maintenances/:id',
    handle((req, res) => {
      const maintenance = engine.maintenance(param(req, 'id'));
      if (!maintenance) throw new NotFoundError('There is no maintenance with this id.');
      res.json(maintenance);
    }),
  );
  router.post(
    '/api/operator/maintenances',
    requireJson,
    handle((req, res) => {
      const body = validated(ScheduleMaintenanceBody, req.body);
      const maintenance = engine.scheduleMaintenance({
        name: body.name,
        componentIds: body.component_ids,
        scheduledFor: new Date(body.scheduled_for),
        scheduledUntil: new Date(body.scheduled_until),
        ...(body.body ? { body: body.body } : {}),
        ...(body.impact ? { impact: body.impact } : {}),
      });
      res.status(201).json(maintenance);
    }),
  );
  router.post(
    '/api/operator/maintenances/:id/updates',
    requireJson,
    handle((req, res) => {
      const body = validated(MaintenanceUpdateBody, req.body);
      res
        .status(201)
        .json(engine.addMaintenanceUpdate(param(req, 'id'), { body: body.body, ...(body.status ? { status: body.status } : {}) }));
    }),
  );
  return router;
}
