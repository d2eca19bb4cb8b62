import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import { queryKeys } from './query-keys';
import type { Layout, ListOf, SenderDomain, Template, TrackingDomain, TransactionalEmail } from './types';

/** Reads of the client's catalog (the spec's prerequisites), shared by the setup screen, its checklist and the editors. */

export const useSenderDomains = () =>
  useQuery({ queryKey: queryKeys.senderDomains, queryFn: () => api<ListOf<SenderDomain>>('/sender-domains') });

export const useTrackingDomains = () =>
  useQuery({ queryKey: queryKeys.trackingDomains, queryFn: () => api<ListOf<TrackingDomain>>('/tracking-domains') });

export const useTemplates = (projectId: string | undefined) =>
  useQuery({
    queryKey: queryKeys.templates(projectId ?? ''),
    queryFn: () => api<ListOf<Template>>(`/projects/${projectId}/templates`),
    enabled: Boolean(projectId),
  });

export const useEmails = (projectId: string | undefined) =>
  useQuery({
    queryKey: queryKeys.emails(projectId ?? ''),
    queryFn: () => api<ListOf<TransactionalEmail>>(`/projects/${projectId}/emails`),
    enabled: Boolean(projectId),
  });

export const useLayouts = (projectId: string | undefined) =>
  useQuery({
    queryKey: queryKeys.layouts(projectId ?? ''),
    queryFn: () => api<ListOf<Layout>>(`/projects/${projectId}/layouts`),
    enabled: Boolean(projectId),
  });
