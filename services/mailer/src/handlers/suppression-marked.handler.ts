import { defineHandler, type Handler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { MarkerWatch } from '../domain/marker-watch';

/** `suppression.marked`: marker keys an instance stored, into this instance's filter of them. */
export const suppressionMarkedHandler = (markers: MarkerWatch): Handler<'suppression.marked'> =>
  defineHandler({
    topic: Topics.SuppressionMarkers,
    type: 'suppression.marked',
    handle: (data) => {
      markers.heard(data.keys);
      return Promise.resolve();
    },
  });
