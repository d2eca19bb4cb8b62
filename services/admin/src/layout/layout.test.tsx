import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { createQueryClient } from '../app';
import { Layout } from './layout';
import { gatewayAnswer } from '../test-answer';

const PROJECTS = [
  { id: 'prj_one', name: 'Shop' },
  { id: 'prj_two', name: 'Blog' },
];

/** The gateway: a session, and two projects. */
function fakeGateway(): void {
  globalThis.fetch = jest.fn((url: string) => {
    const path = url.split('?')[0];
    const answer =
      path === '/v1/auth/session'
        ? { status: 200, body: { client_id: 'cl_demo', scope: 'full', via: 'session' } }
        : path === '/v1/projects'
          ? { status: 200, body: { data: PROJECTS } }
          : { status: 404, body: { title: 'Not found', status: 404 } };
    return gatewayAnswer(answer.status, answer.body);
  }) as unknown as typeof fetch;
}

/** Where the router is: the screens print their path. */
function Screen({ name }: { name: string }) {
  return <p aria-label="Screen">{`${name} at ${useLocation().pathname}`}</p>;
}

function renderAt(path: string): void {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route element={<Layout />}>
            <Route path="webhooks" element={<Screen name="webhooks" />} />
            <Route path="projects/:projectId/users" element={<Screen name="users" />} />
          </Route>
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the layout', () => {
  beforeEach(() => localStorage.clear());

  it("the project picker, on a screen without a project in its path, switches the project the sections' links go to", async () => {
    fakeGateway();
    renderAt('/webhooks');
    const picker = await screen.findByRole('combobox', { name: 'Project' });
    const sections = screen.getByRole('navigation', { name: 'Sections' });
    expect(picker).toHaveValue('prj_one');
    expect(within(sections).getByRole('link', { name: 'Messages' })).toHaveAttribute('href', '/projects/prj_one/messages');

    fireEvent.change(picker, { target: { value: 'prj_two' } });
    await waitFor(() => expect(picker).toHaveValue('prj_two'));
    expect(within(sections).getByRole('link', { name: 'Messages' })).toHaveAttribute('href', '/projects/prj_two/messages');
    expect(within(sections).getByRole('link', { name: 'User profile' })).toHaveAttribute('href', '/projects/prj_two/users');
    // The screen stays: only the project changed.
    expect(screen.getByLabelText('Screen')).toHaveTextContent('webhooks at /webhooks');
  });

  it("within a project's screens, the picker opens the same kind of screen in the other project", async () => {
    fakeGateway();
    renderAt('/projects/prj_one/users');
    const picker = await screen.findByRole('combobox', { name: 'Project' });
    fireEvent.change(picker, { target: { value: 'prj_two' } });
    await waitFor(() => expect(screen.getByLabelText('Screen')).toHaveTextContent('users at /projects/prj_two/users'));
    expect(picker).toHaveValue('prj_two');
  });
});
