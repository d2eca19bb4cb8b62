import { MAX_MARKER_KEYS_PER_EVENT } from '@postbus/contracts';
import { MarkerFilter } from './marker-filter';

/** Publishes marker keys to every mailer instance (the `suppression.marked` announcement). */
export type AnnounceMarkers = (keys: string[]) => Promise<void>;

/**
 * Whether an address's marker may be skipped (no point read) because this instance's filter
 * knows every marker stored anywhere: live once the filter holds a scan of the stored markers and
 * the announcements made since (read from the topic's start, so that a marker stored during the
 * scan is heard however the two interleave), and only while the announcements' consumer keeps
 * fetching. A marker stored by another instance is missed for at most about one fetch of that
 * consumer; this instance's own are in the filter before their store call returns. Anything else
 * (starting, the consumer stalled or stopped) reads every marker, as before the filter.
 */
export class MarkerWatch {
  readonly filter: MarkerFilter;
  private ready = false;
  private announce: AnnounceMarkers | undefined;
  /** Whether the announcements' consumer fetched within the last `ms` (none until connect). */
  private fetchedWithin: (ms: number) => boolean = () => false;

  constructor(
    /** How recent its last fetch must be for the filter to be trusted. */
    private readonly liveWithinMs = 1_000,
    capacity?: number,
  ) {
    this.filter = new MarkerFilter(capacity);
  }

  /** The filter may answer for the markers: see the class. */
  live(): boolean {
    return this.ready && this.fetchedWithin(this.liveWithinMs);
  }

  /** Whether a marker key may be stored; without a live filter, always (it must be read). */
  mayBeMarked(key: string): boolean {
    return !this.live() || this.filter.mayHold(key);
  }

  /** Marker keys this instance stored: in its filter at once, and announced to the others once it announces. */
  async stored(keys: string[]): Promise<void> {
    this.heard(keys);
    if (!this.announce) return;
    for (let from = 0; from < keys.length; from += MAX_MARKER_KEYS_PER_EVENT)
      await this.announce(keys.slice(from, from + MAX_MARKER_KEYS_PER_EVENT));
  }

  /** Marker keys another instance (or a scan) found stored. */
  heard(keys: string[]): void {
    for (const key of keys) this.filter.add(key);
  }

  /** From now on, the markers this instance stores are announced, and its consumer's fetches tell whether it hears the others'. */
  connect(announce: AnnounceMarkers, fetchedWithin: (ms: number) => boolean): void {
    this.announce = announce;
    this.fetchedWithin = fetchedWithin;
  }

  /** The scan is in the filter and the announcements made before it began are heard. */
  caughtUp(): void {
    this.ready = true;
  }
}
