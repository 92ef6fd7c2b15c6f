{#- Blue/green publishing (docs/transactions.md, "dbt blue/green"): every model is built into the target's schema
    (the staging one), `dbt build` tests it there, and one ALTER SCHEMA ... SWAP WITH publishes all of it at once. -#}

{% macro spark_ddl_log_swap_schemas(a, b) -%}
  {#- dbt run-operation spark_ddl_log_swap_schemas --args '{a: analytics_staging, b: analytics}': the two schemas
      exchange every table and view in one atomic statement of the DDL log (all or none, no file moves). -#}
  {%- do run_query("alter schema " ~ adapter.quote(a) ~ " swap with " ~ adapter.quote(b)) -%}
  {{- log("spark_ddl_log: swapped schema " ~ a ~ " with " ~ b, info=True) -}}
{%- endmacro %}


{% macro spark_ddl_log_publish(published) -%}
  {#- on-run-end: "{{ spark_ddl_log_publish('analytics') }}": after a `dbt build` into the staging schema (the
      target's) in which every node succeeded (models built, tests passed or warned), swap the staging schema with
      `published`; after any error, failing test or skipped node, publish nothing. Other commands (run, test, seed,
      a build into `published` itself) publish nothing either. -#}
  {%- if execute -%}
    {%- set failed = [] -%}
    {%- for result in results -%}
      {%- if result.status not in ('success', 'pass', 'warn') -%}
        {%- do failed.append(result.node.unique_id ~ ": " ~ result.status) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if invocation_args_dict.get('which') != 'build' or target.schema == published -%}
      {{- log("spark_ddl_log: not publishing (only a dbt build into a staging schema publishes)", info=True) -}}
    {%- elif failed or not results -%}
      {{- log("spark_ddl_log: not publishing to " ~ published ~ ": " ~ (failed | join(", ") or "no node ran"),
              info=True) -}}
    {%- else -%}
      {{- spark_ddl_log_swap_schemas(target.schema, published) -}}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}
