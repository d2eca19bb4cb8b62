import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError } from './api/client';
import { Layout } from './layout/layout';
import { HomeScreen } from './screens/home-setup';
import { SetupScreen } from './screens/setup';
import { SignIn } from './screens/sign-in';
import { UserProfileScreen } from './screens/user-profile';
import { UserSearchScreen } from './screens/user-search';
import { WebhookDetailScreen } from './screens/webhook-detail';
import { WebhooksScreen } from './screens/webhooks';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not change by asking again; a network error or a 503 may.
        retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
        staleTime: 5_000,
      },
    },
  });
}

/**
 * Every screen lives under the layout (navigation, project picker, session). A new section is one
 * more child route here and one more entry in layout/navigation.ts.
 */
const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignIn /> },
    {
      element: <Layout />,
      children: [
        { index: true, element: <HomeScreen /> },
        { path: 'projects/:projectId/users', element: <UserSearchScreen /> },
        { path: 'projects/:projectId/users/:ref', element: <UserProfileScreen /> },
        { path: 'webhooks', element: <WebhooksScreen /> },
        { path: 'webhooks/:webhookId', element: <WebhookDetailScreen /> },
        { path: 'setup', element: <SetupScreen /> },
        // The code editor and the charts are large: loaded when their screen is first opened.
        {
          path: 'projects/:projectId/templates/:templateId',
          lazy: async () => ({ Component: (await import('./screens/template-editor')).TemplateEditorScreen }),
        },
        { path: 'projects/:projectId/layouts', lazy: async () => ({ Component: (await import('./screens/layouts')).LayoutsScreen }) },
        {
          path: 'projects/:projectId/layouts/:layoutId',
          lazy: async () => ({ Component: (await import('./screens/layout-editor')).LayoutEditorScreen }),
        },
        { path: 'projects/:projectId/messages', lazy: async () => ({ Component: (await import('./screens/messages')).MessagesScreen }) },
        {
          path: 'projects/:projectId/scheduled',
          lazy: async () => ({ Component: (await import('./screens/scheduled')).ScheduledScreen }),
        },
        {
          path: 'projects/:projectId/suppressions',
          lazy: async () => ({ Component: (await import('./screens/suppressions')).SuppressionsScreen }),
        },
        { path: 'projects/:projectId/revenue', lazy: async () => ({ Component: (await import('./screens/revenue')).RevenueScreen }) },
        { path: 'erasures', lazy: async () => ({ Component: (await import('./screens/erasures')).ErasuresScreen }) },
        { path: 'keys', lazy: async () => ({ Component: (await import('./screens/api-keys')).ApiKeysScreen }) },
        { path: '*', element: <Navigate to="/" replace /> },
      ],
    },
  ],
  { basename: '/admin' },
);

const queryClient = createQueryClient();

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
