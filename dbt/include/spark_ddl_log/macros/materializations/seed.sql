{#- seed: one atomic statement, CREATE OR REPLACE TABLE with the seed's columns (dbt-spark's create_csv_table) and
    its rows (dbt-spark's batched VALUES, each value cast to its column's type, inserted as INSERT INTO inserts them,
    by column name); over method: thrift the same as one CREATE OR REPLACE TABLE ... AS SELECT of the typed rows.
    Readers see the old seed or the new one, whole; a failed load leaves the old one. -#}
{% materialization seed, adapter='spark_ddl_log' %}
  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=model['alias']) -%}
  {%- if old_relation is not none and old_relation.is_view -%}
    {{ exceptions.raise_compiler_error("Cannot seed to '{}', it is a view".format(old_relation.render())) }}
  {%- endif -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set agate_table = load_agate_table() -%}
  {%- do store_result('agate_table', response='OK', agate_table=agate_table) -%}
  {%- set column_types = model['config'].get('column_types', {}) -%}
  {%- set quote_columns = model['config'].get('quote_columns', None) -%}

  {{ run_hooks(pre_hooks) }}

  {%- set columns = [] -%}
  {%- for name in agate_table.column_names -%}
    {%- do columns.append((name | string, column_types.get(name, adapter.convert_type(agate_table, loop.index0)))) -%}
  {%- endfor -%}

  {%- set clauses -%}
      {{ file_format_clause() }}
      {{ partition_cols(label="partitioned by") }}
      {{ clustered_cols(label="clustered by") }}
      {{ location_clause() }}
      {{ comment_clause() }}
  {%- endset -%}
  {%- set create -%}
    create or replace table {{ this.render() }} (
      {%- for name, type in columns -%}
        {{ adapter.quote_seed_column(name, quote_columns) }} {{ type }}{{ ", " if not loop.last }}
      {%- endfor -%}
    ) {{ clauses }}
  {%- endset -%}

  {%- set batches = [] -%}
  {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
    {%- set bindings = [] -%}
    {%- for row in chunk -%}{%- do bindings.extend(row) -%}{%- endfor -%}
    {%- set values -%}
      {%- for row in chunk %} ({% for name, type in columns -%}
        cast({{ get_binding_char() }} as {{ type }}){{ ", " if not loop.last }}
      {%- endfor %}){{ "," if not loop.last }}
      {%- endfor %}
    {%- endset -%}
    {%- do batches.append([values, bindings]) -%}
  {%- endfor -%}

  {%- set quoted = [] -%}
  {%- for name, type in columns -%}{%- do quoted.append(adapter.quote_seed_column(name, quote_columns)) -%}{%- endfor -%}
  {%- do adapter.spark_ddl_log_replace_seed(create, this.render(), clauses, columns | map('first') | list, quoted,
                                            columns | map('last') | list, config.get('partition_by'), batches) -%}

  {%- set rows = agate_table.rows | length -%}
  {% call noop_statement('main', 'INSERT ' ~ rows, 'INSERT', rows) %}
    {{ create }}
  {% endcall %}

  {%- set target_relation = this.incorporate(type='table') -%}
  {% do apply_grants(target_relation, grant_config, should_revoke(old_relation, full_refresh_mode=True)) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
