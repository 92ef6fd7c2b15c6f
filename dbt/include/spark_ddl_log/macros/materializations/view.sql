{#- view: dbt's create_or_replace_view, whose existing-table handling (a drop in dbt-spark) is
    spark_ddl_log__handle_existing_table: the CREATE OR REPLACE VIEW changes the table into a view in one statement. -#}
{% materialization view, adapter='spark_ddl_log' -%}
  {{ return(create_or_replace_view()) }}
{%- endmaterialization %}
