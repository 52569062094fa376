import { type ComponentType } from 'react';
import { afterEach, beforeEach, type Mock, vi } from 'vitest';
import { Form, type FormInstance } from 'antd';
import { type AuthUser } from '@adplane/shared';
import { clearLists } from '../api/lists.js';
import { type ResourceFormProps } from '../resources/ResourceDrawer.js';
import { jsonResponse } from './fixtures.js';
import { renderWithAuth } from './render.js';

/**
 * A form test's network: every call answers an empty list (the reference lists a form's selects load),
 * the cached lists cleared before each test. Returns the mock, for tests that answer some calls
 * themselves or look at what was sent.
 */
export function stubEmptyLists(): Mock<typeof fetch> {
  const fetchMock = vi.fn<typeof fetch>();
  beforeEach(() => {
    clearLists();
    vi.stubGlobal('fetch', fetchMock);
    fetchMock.mockImplementation(async () => jsonResponse([]));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    fetchMock.mockReset();
  });
  return fetchMock;
}

/** An entity form as its drawer renders it (a new row, editable), for `user`: the form instance, to set and read fields. */
export function renderEntityForm(
  FormBody: ComponentType<ResourceFormProps>,
  initialValues: Record<string, unknown>,
  user: AuthUser,
): FormInstance {
  let instance!: FormInstance;
  function Harness() {
    const [form] = Form.useForm();
    instance = form;
    return (
      <Form form={form} layout="vertical" initialValues={initialValues}>
        <FormBody form={form} row={null} readOnly={false} />
      </Form>
    );
  }
  renderWithAuth(<Harness />, user);
  return instance;
}
