{#- The statements dbt-spark sends as DROP + CREATE are sent here as one statement the DDL log makes atomic. -#}

{% macro spark_ddl_log_any_kind() -%}
  {#- Marks CREATE OR REPLACE TABLE / VIEW as "whatever kind the name has now": the DDL log changes a view into a
      table (or back) in one atomic statement, the name never missing. -#}
  /* spark_ddl_log: any kind */
{%- endmacro %}


{% macro spark_ddl_log__create_table_as(temporary, relation, compiled_code, language='sql') -%}
  {%- if language != 'sql' or temporary -%}
    {{ spark__create_table_as(temporary, relation, compiled_code, language) }}
  {%- else -%}
    {%- if config.get('contract').enforced -%}
      {{ get_assert_columns_equivalent(compiled_code) }}
      {%- set compiled_code = get_select_subquery(compiled_code) -%}
    {%- endif -%}
    create or replace {{ spark_ddl_log_any_kind() }} table {{ relation }}
      {{ file_format_clause() }}
      {{ options_clause() }}
      {{ tblproperties_clause() }}
      {{ partition_cols(label="partitioned by") }}
      {{ clustered_cols(label="clustered by") }}
      {{ location_clause() }}
      {{ comment_clause() }}
    as
      {{ compiled_code }}
  {%- endif -%}
{%- endmacro %}


{% macro spark_ddl_log__create_view_as(relation, sql) -%}
  create or replace {{ spark_ddl_log_any_kind() }} view {{ relation }}
  {% if config.persist_column_docs() -%}
    (
    {{ get_persist_docs_column_list(model.columns, get_columns_in_query(sql)) }}
    )
  {% endif %}
  {{ comment_clause() }}
  {%- if config.get('contract').enforced -%}
    {{ get_assert_columns_equivalent(sql) }}
  {%- endif %}
  as
    {{ sql }}
{%- endmacro %}


{% macro spark_ddl_log__handle_existing_table(full_refresh, old_relation) -%}
  {#- A view materialization over a table: no drop, the CREATE OR REPLACE VIEW above changes its kind. -#}
  {{ log("Replacing table " ~ old_relation.render() ~ " by a view in one statement of the DDL log") }}
{%- endmacro %}


{% macro spark_ddl_log_release(relation) -%}
  {#- dbt run-operation spark_ddl_log_release --args '{relation: schema.model}': RELEASE TABLE NAME through the DDL
      log, before a model goes back to plain dbt-spark (README "dbt", "Going back to plain dbt-spark"): the previous
      version of the model's table kept at <schema>/<model> for its grace period is deleted now, so that plain
      dbt-spark's CREATE finds the directory free. Queries still reading that version then fail. -#}
  {%- do run_query("release table name " ~ relation) -%}
  {{- log("spark_ddl_log: released the default directory of " ~ relation, info=True) -}}
{%- endmacro %}
