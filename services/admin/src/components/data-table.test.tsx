import { render, screen } from '@testing-library/react';
import { DataTable } from './data-table';

const row = (
  <tr>
    <td>1</td>
    <td>200</td>
  </tr>
);

describe('DataTable', () => {
  it('names the table by its caption, heads its columns and names the last one for screen readers only', () => {
    render(
      <DataTable caption="Keys, oldest first" minWidth="min-w-[40rem]" columns={['Name', 'Scope']} lastColumn="Actions">
        {row}
      </DataTable>,
    );
    const table = screen.getByRole('table', { name: 'Keys, oldest first' });
    expect(table).toHaveClass('min-w-[40rem]');
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Name', 'Scope', 'Actions']);
    expect(screen.getByText('Actions')).toHaveClass('sr-only');
  });

  it('compact: the same header, without a last column when none is named', () => {
    render(
      <DataTable caption="Attempts of dl_1" columns={['#', 'Status code']} density="compact">
        {row}
      </DataTable>,
    );
    expect(screen.getByRole('table', { name: 'Attempts of dl_1' })).toBeInTheDocument();
    const headers = screen.getAllByRole('columnheader');
    expect(headers.map((th) => [th.textContent, th.getAttribute('scope')])).toEqual([
      ['#', 'col'],
      ['Status code', 'col'],
    ]);
    expect(screen.getAllByRole('row')).toHaveLength(2); // the header and the one row
  });
});
