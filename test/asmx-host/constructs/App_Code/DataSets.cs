// DataSets as ASMX services return them: untyped with one table holding every column type a DataSet
// carries, untyped with two related tables, a typed DataSet (Inventory.xsd, compiled by ASP.NET from
// App_Code), a DataTable, and a DataSet accepted as a parameter.
using System;
using System.Data;
using System.Web.Services;

namespace Constructs
{
    [WebService(Namespace = "http://tempuri.org/constructs/datasets/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class DataSets : WebService
    {
        static DataTable AllTypesTable(bool withNulls)
        {
            var t = new DataTable("Values");
            t.Columns.Add("Text", typeof(string));
            t.Columns.Add("Int32", typeof(int));
            t.Columns.Add("Int16", typeof(short));
            t.Columns.Add("Int64", typeof(long));
            t.Columns.Add("Byte", typeof(byte));
            t.Columns.Add("SByte", typeof(sbyte));
            t.Columns.Add("UInt16", typeof(ushort));
            t.Columns.Add("UInt32", typeof(uint));
            t.Columns.Add("UInt64", typeof(ulong));
            t.Columns.Add("Decimal", typeof(decimal));
            t.Columns.Add("Double", typeof(double));
            t.Columns.Add("Single", typeof(float));
            t.Columns.Add("Boolean", typeof(bool));
            t.Columns.Add("DateTime", typeof(DateTime));
            t.Columns.Add("TimeSpan", typeof(TimeSpan));
            t.Columns.Add("Guid", typeof(Guid));
            t.Columns.Add("Bytes", typeof(byte[]));
            t.Columns.Add("Char", typeof(char));
            t.Rows.Add("héllo <&>", -7, (short)-300, 9007199254740993L, (byte)200, (sbyte)-5, (ushort)60000, 4000000000u, 18446744073709551615ul,
                12.345m, 1.5, 0.25f, true, new DateTime(2024, 5, 6, 7, 8, 9, DateTimeKind.Utc), new TimeSpan(1, 2, 3, 4),
                new Guid("0f8fad5b-d9cb-469f-a165-70867728950e"), new byte[] { 0, 1, 2, 250, 255 }, 'A');
            if (withNulls)
            {
                var row = t.NewRow();
                row["Text"] = "only text";
                t.Rows.Add(row);
            }
            return t;
        }

        [WebMethod(Description = "One table, Values, with a column of every type a DataSet carries; a second row holds only Text (the rest DBNull).")]
        public DataSet AllTypes()
        {
            var ds = new DataSet("AllTypesSet");
            ds.Tables.Add(AllTypesTable(true));
            return ds;
        }

        [WebMethod(Description = "Two related tables: Customers and Orders, with a relation on CustomerId.")]
        public DataSet CustomersAndOrders()
        {
            var ds = new DataSet("Shop");
            var c = ds.Tables.Add("Customers");
            c.Columns.Add("CustomerId", typeof(int));
            c.Columns.Add("Name", typeof(string));
            c.PrimaryKey = new[] { c.Columns["CustomerId"] };
            var o = ds.Tables.Add("Orders");
            o.Columns.Add("OrderId", typeof(int));
            o.Columns.Add("CustomerId", typeof(int));
            o.Columns.Add("Total", typeof(decimal));
            ds.Relations.Add("CustomerOrders", c.Columns["CustomerId"], o.Columns["CustomerId"]);
            c.Rows.Add(1, "Alice");
            c.Rows.Add(2, "Bob");
            o.Rows.Add(10, 1, 9.99m);
            o.Rows.Add(11, 1, 20m);
            o.Rows.Add(12, 2, 5.5m);
            return ds;
        }

        [WebMethod(Description = "An empty DataSet (no tables).")]
        public DataSet Empty()
        {
            return new DataSet("Nothing");
        }

        [WebMethod(Description = "A typed DataSet (Inventory.xsd): Products and Stock.")]
        public Inventory TypedInventory()
        {
            var ds = new Inventory();
            ds.Products.AddProductsRow(1, "Widget", 2.5m);
            ds.Products.AddProductsRow(2, "Gadget", 10m);
            ds.Stock.AddStockRow(1, (short)40);
            return ds;
        }

        [WebMethod(Description = "A DataTable result (not a DataSet).")]
        public DataTable Table()
        {
            var t = new DataTable("Pairs");
            t.Columns.Add("Key", typeof(string));
            t.Columns.Add("Value", typeof(int));
            t.Rows.Add("a", 1);
            t.Rows.Add("b", 2);
            return t;
        }

        [WebMethod(Description = "Counts the tables and rows of a DataSet sent in.")]
        public string Count(DataSet data)
        {
            if (data == null) return "null";
            var parts = new System.Collections.Generic.List<string>();
            foreach (DataTable t in data.Tables) parts.Add(t.TableName + ":" + t.Rows.Count + "x" + t.Columns.Count);
            return data.DataSetName + " " + string.Join(",", parts.ToArray());
        }
    }
}
