import { render, screen, within } from '@testing-library/react';
import type { Message } from '../api/types';
import { isSettled, MessageItem } from './timeline';

const message: Message = {
  id: 'msg_0123',
  project_id: 'p1',
  email_key: 'welcome',
  source: 'api',
  template: { id: 'tpl_1', version: 1 },
  language: null,
  email: 'ada@example.com',
  user_id: null,
  status: 'sent',
  accepted_at: '2026-05-01T10:00:00.000Z',
  subject: 'Hello Ada',
  opened: true,
  clicked: true,
  opens: 2,
  clicks: 1,
  tags: ['welcome-flow'],
  metadata: { order_id: 'ord_4711' },
  attachments: [],
  test: false,
  created_at: '2026-11-23T10:00:00.000Z',
  updated_at: '2026-11-23T10:05:00.000Z',
  // Out of order on purpose: the timeline orders by sequence.
  timeline: [
    { sequence: 4, event: 'opened', at: '2026-11-23T10:03:00.000Z', count: 2 },
    { sequence: 1, event: 'queued', at: '2026-11-23T10:00:00.000Z' },
    { sequence: 3, event: 'sent', at: '2026-11-23T10:01:30.000Z', smtp: { code: 250, response: '2.0.0 Ok: queued as 4711' }, attempt: 2 },
    { sequence: 2, event: 'deferred', at: '2026-11-23T10:00:01.000Z', smtp: { code: 451, response: '4.7.1 Try again later' }, attempt: 1 },
    { sequence: 5, event: 'clicked', at: '2026-11-23T10:04:00.000Z', url: 'https://example.com/start' },
  ],
};

describe('a message with its timeline', () => {
  it("lists the send's attachments with their type and size, an inline part marked, never their content", () => {
    render(
      <MessageItem
        message={{
          ...message,
          attachments: [
            { filename: 'invoice.pdf', content_type: 'application/pdf', size: 1_048_576 },
            { filename: 'logo.png', content_type: 'image/png', size: 2048, content_id: 'logo' },
          ],
        }}
      />,
    );
    const list = screen.getByLabelText('Attachments');
    expect(within(list).getByText('invoice.pdf')).toBeInTheDocument();
    expect(within(list).getByText('application/pdf · 1.0 MB')).toBeInTheDocument();
    expect(within(list).getByText('image/png · 2.0 KB · inline')).toBeInTheDocument();
  });

  it('offers each attachment as a download from the API, by its place in the list, with its name', () => {
    render(
      <MessageItem
        message={{
          ...message,
          attachments: [
            { filename: 'invoice.pdf', content_type: 'application/pdf', size: 1_048_576 },
            { filename: 'Überweisung "März".txt', content_type: 'text/plain', size: 10 },
          ],
        }}
      />,
    );
    const links = within(screen.getByLabelText('Attachments')).getAllByRole('link');
    expect(links.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('download')])).toEqual([
      ['invoice.pdf', '/v1/projects/p1/messages/msg_0123/attachments/0', 'invoice.pdf'],
      ['Überweisung "März".txt', '/v1/projects/p1/messages/msg_0123/attachments/1', 'Überweisung "März".txt'],
    ]);
    expect(links[0]).toHaveAttribute('title', 'Download invoice.pdf');
  });

  it('carries a test badge when it was sent with a test key, and none otherwise', () => {
    const { unmount } = render(<MessageItem message={{ ...message, test: true }} />);
    expect(screen.getByTitle('Sent with a test key: simulated, never delivered')).toHaveTextContent('test');
    unmount();
    render(<MessageItem message={message} />);
    expect(screen.queryByTitle('Sent with a test key: simulated, never delivered')).toBeNull();
  });

  it("shows the send's tags and metadata, and nothing for a send without them", () => {
    const { unmount } = render(<MessageItem message={message} />);
    expect(within(screen.getByRole('list', { name: 'Tags' })).getByText('welcome-flow')).toBeInTheDocument();
    const metadata = screen.getByLabelText('Metadata');
    expect(within(metadata).getByText('order_id')).toBeInTheDocument();
    expect(within(metadata).getByText('ord_4711')).toBeInTheDocument();
    unmount();
    render(<MessageItem message={{ ...message, tags: [], metadata: {} }} />);
    expect(screen.queryByRole('list', { name: 'Tags' })).toBeNull();
    expect(screen.queryByLabelText('Metadata')).toBeNull();
  });

  it('shows the cc and bcc addresses, each dropped copy with why, and nothing for a send without copies', () => {
    const { unmount } = render(
      <MessageItem
        message={{
          ...message,
          cc: ['bo@example.com', 'cy@example.com'],
          bcc: ['archive@example.com'],
          dropped_copies: [{ email: 'cy@example.com', kind: 'cc', reason: 'hard_bounce' }],
        }}
      />,
    );
    const copies = screen.getByLabelText('Copies');
    expect(within(copies).getByText('Cc')).toBeInTheDocument();
    expect(within(copies).getByText('Bcc')).toBeInTheDocument();
    expect(within(copies).getByText('archive@example.com')).toBeInTheDocument();
    expect(within(copies).getByText('dropped: hard_bounce')).toBeInTheDocument();
    expect(within(copies).getByTitle('not sent: hard_bounce')).toHaveTextContent('cy@example.com');
    unmount();
    render(<MessageItem message={message} />);
    expect(screen.queryByLabelText('Copies')).toBeNull();
  });

  it('shows what came back about a copy beside its address, and an erased address as often as it stands', () => {
    render(
      <MessageItem
        message={{
          ...message,
          cc: ['(erased)', '(erased)', 'bo@example.com'],
          bcc: ['slow@example.com'],
          copy_reports: [
            { email: 'bo@example.com', kind: 'cc', event: 'bounced', at: '2026-01-01T00:00:00.000Z' },
            { email: 'slow@example.com', kind: 'bcc', event: 'soft_bounced', at: '2026-01-01T00:00:00.000Z', count: 2 },
          ],
        }}
      />,
    );
    const copies = screen.getByLabelText('Copies');
    expect(within(copies).getByText('bounced')).toBeInTheDocument();
    expect(within(copies).getByText('soft bounced')).toBeInTheDocument();
    expect(within(copies).getAllByText(/\(erased\)/)).toHaveLength(2);
    expect(copies.textContent).toContain('(erased), (erased), bo@example.com');
  });

  it('shows its status and every step in order, with the SMTP answers and the clicked link', () => {
    render(<MessageItem message={message} />);
    const article = screen.getByRole('article', { name: 'Message Hello Ada' });
    expect(within(article).getAllByText('sent')[0]).toBeInTheDocument();
    const steps = within(screen.getByRole('list', { name: 'Timeline' })).getAllByRole('listitem');
    expect(steps.map((li) => li.querySelector('span:not([aria-hidden])')?.textContent)).toEqual([
      'queued',
      'deferred',
      'sent',
      'opened',
      'clicked',
    ]);
    expect(steps[1]).toHaveTextContent('SMTP 451 4.7.1 Try again later');
    expect(steps[1]).toHaveTextContent('attempt 1');
    expect(steps[2]).toHaveTextContent('SMTP 250 2.0.0 Ok: queued as 4711');
    expect(steps[3]).toHaveTextContent('2 times');
    expect(steps[4]).toHaveTextContent('Link: https://example.com/start');
  });

  it('names a soft bounce and a complaint on the timeline with their reports, and shows them beside the status', () => {
    render(
      <MessageItem
        message={{
          ...message,
          timeline: [
            { sequence: 1, event: 'queued', at: '2026-11-23T10:00:00.000Z' },
            { sequence: 2, event: 'sent', at: '2026-11-23T10:00:01.000Z', smtp: { code: 250, response: '2.0.0 Ok' }, attempt: 1 },
            {
              sequence: 3,
              event: 'soft_bounced',
              at: '2026-11-23T11:00:00.000Z',
              reason: 'soft bounce (delayed 4.2.2): smtp; 452 4.2.2 Mailbox full; reported by mx.example.com',
            },
            { sequence: 4, event: 'complained', at: '2026-11-23T12:00:00.000Z', reason: 'abuse report from Yahoo! Mail AntiSpam Feedback' },
          ],
        }}
      />,
    );
    const steps = within(screen.getByRole('list', { name: 'Timeline' })).getAllByRole('listitem');
    expect(steps[2]).toHaveTextContent(
      'Soft bounce: soft bounce (delayed 4.2.2): smtp; 452 4.2.2 Mailbox full; reported by mx.example.com',
    );
    expect(steps[3]).toHaveTextContent('Complaint: abuse report from Yahoo! Mail AntiSpam Feedback');
    // Beside the status, in the message's header: a complaint or a soft bounce is no status of its own.
    const header = screen.getByRole('article').querySelector('header')!;
    expect(within(header).getByText('sent')).toBeInTheDocument();
    expect(within(header).getByText('complained')).toBeInTheDocument();
    expect(within(header).getByText('soft_bounced')).toBeInTheDocument();
  });

  it('shows when a scheduled message goes, and when a cancelled one was to go', () => {
    const sendAt = '2026-12-24T18:00:00.000Z';
    const waiting: Message = {
      ...message,
      status: 'scheduled',
      subject: null,
      send_at: sendAt,
      timeline: [{ sequence: 1, event: 'scheduled', at: '2026-11-23T10:00:00.000Z' }],
    };
    const { unmount } = render(<MessageItem message={waiting} />);
    expect(screen.getByText(/goes at/)).toBeInTheDocument();
    expect(screen.getByRole('article').querySelector(`time[datetime="${sendAt}"]`)).not.toBeNull();
    unmount();
    render(<MessageItem message={{ ...waiting, status: 'canceled' }} />);
    expect(screen.getByText(/scheduled for/)).toBeInTheDocument();
  });

  it('says what the message was sent as and how it came: a template send through the API, a content send over SMTP', () => {
    const { unmount } = render(<MessageItem message={message} />);
    expect(screen.getByTitle('Sent through the API from template version 1')).toHaveTextContent('welcome · API');
    unmount();
    render(<MessageItem message={{ ...message, email_key: null, source: 'smtp', template: null }} />);
    expect(screen.getByTitle('Sent over SMTP with its own content (no template)')).toHaveTextContent('content · SMTP');
  });

  it("names the template's language the message was rendered in, and none for its default", () => {
    const { unmount } = render(<MessageItem message={{ ...message, language: 'de' }} />);
    expect(screen.getByTitle('Sent through the API from template version 1')).toHaveTextContent('welcome · de · API');
    expect(screen.getByTitle("Rendered in the template's de variant")).toHaveTextContent('de');
    unmount();
    render(<MessageItem message={message} />);
    expect(screen.queryByTitle(/^Rendered in/)).toBeNull();
  });

  it('is settled (no more polling) once sent, bounced, failed, suppressed or canceled, not while scheduled, queued or deferred', () => {
    expect(isSettled({ status: 'sent' })).toBe(true);
    expect(isSettled({ status: 'bounced' })).toBe(true);
    expect(isSettled({ status: 'canceled' })).toBe(true);
    expect(isSettled({ status: 'scheduled' })).toBe(false);
    expect(isSettled({ status: 'queued' })).toBe(false);
    expect(isSettled({ status: 'deferred' })).toBe(false);
  });
});
